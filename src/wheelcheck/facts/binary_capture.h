// One binary entry's facts, gathered while its bytes stream past once. From the first bytes the
// format's capture plan says what to keep (an ELF's program headers locate the dynamic section,
// notes and section headers; its first loadable segment, which holds .dynstr, .dynsym and the
// version records, is kept until the dynamic section that points into it has streamed past); the
// fatbin scanner sees every byte. Ranges found only later (a .dynstr patchelf moved to the end)
// are kept when the stream reaches them. A layout whose program headers come after the dynamic
// section they locate cannot be planned in one pass: second_pass() streams the entry once more
// with the plan known; what is still missing after that is named by missing() for targeted
// re-reads. The analyzer counts the bytes read again.
// Memory: the kept ranges, the retained segment (capped, and bounded for the whole process by
// kRetainBudget) and a 1 MiB tail, never the whole entry.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "binary/binary_facts.h"
#include "binary/sparse_file.h"

namespace wc {

// The largest first loadable segment kept whole while an entry streams (beyond it, what the
// dynamic section points at is re-read).
constexpr uint64_t kRetainCap = 32ull << 20;
// What all captures in a process keep whole at once, together (see binary_capture.cc).
constexpr uint64_t kRetainBudget = 24ull << 20;

class BinaryCapture {
 public:
  BinaryCapture(std::string path, uint64_t size, uint64_t retain_cap = kRetainCap);
  ~BinaryCapture();
  BinaryCapture(BinaryCapture&&) noexcept;
  BinaryCapture& operator=(BinaryCapture&&) noexcept;

  void data(const uint8_t* p, size_t n);  // the entry's bytes, in order
  // After the last byte (or with `complete` false when reading stopped early): parses. True when
  // the facts stand; false when missing() lists ranges a re-read must supply (then add() them and
  // call finish() again).
  bool finish(bool complete = true);
  // After a prefix of the entry (--depth metadata): parses what is there; facts the prefix cannot
  // give are marked headers_only, never guessed. Never asks for more bytes.
  void finish_prefix();
  const std::vector<ByteRange>& missing() const;
  // For a layout whose headers came after what they locate (program headers patchelf moved past
  // the dynamic section): a capture that knows the plan from the start, for one more streaming
  // pass over the entry (its bytes to data(), then finish()). The fatbin scan is kept from this one.
  BinaryCapture second_pass();
  void add(uint64_t off, const uint8_t* p, size_t n);
  bool is_binary() const;  // sniffed as ELF, Mach-O, PE or a bare fatbin
  BinaryFacts take();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wc
