// NVIDIA fatbin containers (magic 0xBA55ED50) found while an ELF streams past. Layout in
// docs/DESIGN.md, "NVIDIA fatbin layout"; the entry flag bits for `a` (0x100000) and `f` (0x200000)
// targets were read off nvcc 13.0 output (tests/fatbin_test.cc builds them and checks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binary/binary_facts.h"
#include "binary/sparse_file.h"

namespace wc {

struct FatbinContainer {
  uint64_t offset = 0, size = 0;  // header included
  size_t first_entry = 0, entry_count = 0;
  std::string error;  // structural problem inside the container
};

// A push parser: bytes arrive in order, in chunks of any size; memory is a few hundred bytes.
class FatbinScanner {
 public:
  void feed(const uint8_t* p, size_t n);
  std::vector<FatbinContainer> containers;
  std::vector<FatbinEntry> entries;

 private:
  enum class State { scan, container_header, entry_header, entry_skip, payload };
  void on_container_header();
  void on_entry_header();
  void start_entry_or_end();
  void payload_byte_run(const uint8_t* p, size_t n);

  State state_ = State::scan;
  uint64_t pos_ = 0;     // absolute offset of the next byte
  uint32_t window_ = 0;  // last four bytes (scan)
  uint64_t window_len_ = 0;
  std::vector<uint8_t> acc_;
  size_t need_ = 0;
  uint64_t container_end_ = 0;
  uint64_t skip_left_ = 0;  // header extension or payload bytes still to pass
  std::vector<uint8_t> payload_head_;
  uint64_t payload_left_ = 0;
};

// Keeps containers inside `range` (the .nv_fatbin section) when known; without section
// information, keeps containers whose every entry parsed.
// Whether a complete 64-bit cubin holds any kernel (.text.*); nullopt when it cannot be told.
std::optional<bool> cubin_has_kernels(const std::vector<uint8_t>& cubin);

// The newest "Cuda compilation tools, release X.Y" in `text` ("" if none).
std::string toolkit_release(std::string_view text);

// Appends `more` to `into` (a cubin's own entry plus the containers found around it).
void merge_fatbins(FatbinFacts& into, const FatbinFacts& more);
void merge_fatbins(FatbinFacts& into, FatbinFacts&& more);  // moves when `into` is empty
FatbinFacts select_fatbins(const FatbinScanner& s, const std::optional<ByteRange>& range,
                           std::vector<std::string>& errors);

}  // namespace wc
