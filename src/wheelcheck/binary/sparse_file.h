// A binary seen through the byte ranges that were kept while it streamed past. Parsers ask for
// ranges; a range not kept raises NeedRanges, and the collector fetches it in a second read.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "util/cursor.h"

namespace wc {

struct ByteRange {
  uint64_t off = 0, len = 0;
  // Saturating: a range read from hostile headers may claim to reach past 2^64.
  uint64_t end() const { return len > UINT64_MAX - off ? UINT64_MAX : off + len; }
};

struct NeedRanges {
  std::vector<ByteRange> ranges;
};

// What to keep of a binary while it streams past once, decided from its first bytes.
struct CapturePlan {
  std::vector<ByteRange> ranges;  // keep these as they stream past
  uint64_t retain_until = 0;      // keep every byte below this offset ...
  uint64_t release_after = 0;     // ... until the stream has passed this one (what the tables there point back at)
  ByteRange region;               // kept too, until then (the segment holding the dynamic section, before it)
  std::vector<ByteRange> loaded;  // what the loader maps; the rest holds the section name table
};

class SparseFile {
 public:
  explicit SparseFile(uint64_t size = 0) : size_(size) {}
  uint64_t size() const { return size_; }

  // Adds bytes at `off` (overlapping chunks merge; the bytes must agree, as they come from one file).
  void add(uint64_t off, const uint8_t* p, size_t n) {
    if (n == 0) return;
    auto it = chunks_.find(off);
    if (it != chunks_.end() && it->second.size() >= n) return;
    auto& c = chunks_[off];
    auto hint = expected_.find(off);
    if (hint != expected_.end() && hint->second > n) c.reserve(hint->second);  // filled piece by piece: one allocation
    c.assign(p, p + n);
    merge();
  }
  // A range that will be added piece by piece as it streams past.
  void expect(const ByteRange& r) {
    if (r.len && r.len <= size_) expected_[r.off] = std::max(expected_[r.off], r.len);
  }
  bool has(uint64_t off, uint64_t len) const { return find(off, len) != nullptr; }

  // A cursor over [off, off+len). Ranges past the end of the file are a ParseError; ranges inside
  // the file that were not kept raise NeedRanges.
  Cursor view(uint64_t off, uint64_t len, Endian e = Endian::little) const {
    uint64_t end = checked_add(off, len, off);
    if (end > size_)
      throw ParseError("range [" + std::to_string(off) + ", " + std::to_string(end) + ") past the end of the " +
                           std::to_string(size_) + "-byte file",
                       off);
    const std::vector<uint8_t>* c = nullptr;
    uint64_t base = 0;
    if (len == 0) return Cursor(std::span<const uint8_t>(), off, e);
    if (!(c = find(off, len, &base))) throw NeedRanges{{{off, len}}};
    return Cursor(std::span<const uint8_t>(c->data() + (off - base), len), off, e);
  }
  // Raises NeedRanges for all missing ranges at once (so one extra read fetches them together).
  void require(const std::vector<ByteRange>& ranges) const {
    NeedRanges need;
    for (const auto& r : ranges)
      if (r.len && r.end() <= size_ && !has(r.off, r.len)) need.ranges.push_back(r);
    if (!need.ranges.empty()) throw need;
  }

 private:
  const std::vector<uint8_t>* find(uint64_t off, uint64_t len, uint64_t* base = nullptr) const {
    auto it = chunks_.upper_bound(off);
    if (it == chunks_.begin()) return nullptr;
    --it;
    if (off + len > it->first + it->second.size()) return nullptr;
    if (base) *base = it->first;
    return &it->second;
  }
  void merge() {
    for (auto it = chunks_.begin(); it != chunks_.end();) {
      auto next = std::next(it);
      if (next == chunks_.end()) break;
      uint64_t end = it->first + it->second.size();
      if (next->first <= end) {
        uint64_t next_end = next->first + next->second.size();
        if (next_end > end)
          it->second.insert(it->second.end(), next->second.begin() + (end - next->first), next->second.end());
        chunks_.erase(next);
      } else {
        it = next;
      }
    }
  }

  uint64_t size_;
  std::map<uint64_t, std::vector<uint8_t>> chunks_;
  std::map<uint64_t, uint64_t> expected_;  // capacity hints by offset
};

}  // namespace wc
