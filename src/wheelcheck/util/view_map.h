// A hash map from string views (entry names, digests, install paths: views of strings that
// outlive the map) to small values, in one flat array: open addressing, linear probing, at most
// half full, each slot holding the key's hash so most probes compare no bytes. The per-entry rules
// ask one per wheel of 100,000 entries; std::unordered_map made a node (an allocation) for each.
// The hash is seeded once per process, so no one name list collides on every machine. A value's
// address holds until the next insertion; iteration order is the table's (callers that report
// in some order sort first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "util/hash.h"

namespace wc {

uint64_t view_map_seed();  // util/view_map.cc: random, fixed for the process

template <typename V>
class ViewMap {
 public:
  // Nothing is allocated until the first insertion (a wheel's parked facts hold an empty one).
  explicit ViewMap(size_t expected = 0) {
    if (expected) rehash(capacity_for(expected));
  }

  // The value of `key`, inserted as `v` when it was not there; the flag says whether it was inserted.
  std::pair<V*, bool> try_emplace(std::string_view key, V v = V{}) {
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? capacity_for(1) : slots_.size() * 2);
    const uint64_t h = hash_bytes(key, seed_);
    Slot& s = slots_[slot(key, h)];
    if (s.tag) return {&s.value, false};
    s = Slot{h | 1, key, std::move(v)};
    ++size_;
    return {&s.value, true};
  }
  V* find(std::string_view key) {
    if (slots_.empty()) return nullptr;
    Slot& s = slots_[slot(key, hash_bytes(key, seed_))];
    return s.tag ? &s.value : nullptr;
  }
  const V* find(std::string_view key) const { return const_cast<ViewMap*>(this)->find(key); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // f(key, value) for each entry, in the table's order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.tag) f(s.key, s.value);
  }

 private:
  struct Slot {
    uint64_t tag = 0;  // the key's hash with the low bit set; 0: empty
    std::string_view key;
    V value{};
  };
  static size_t capacity_for(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    return cap;
  }
  // The key's slot, or the empty one where it would go (`h`: its hash, or its tag).
  size_t slot(std::string_view key, uint64_t h) const {
    const size_t mask = slots_.size() - 1;
    const uint64_t tag = h | 1;
    for (size_t i = static_cast<size_t>(h >> 1) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (!s.tag || (s.tag == tag && s.key == key)) return i;
    }
  }
  void rehash(size_t cap) {
    std::vector<Slot> old(cap);
    old.swap(slots_);
    for (Slot& s : old)
      if (s.tag) slots_[slot(s.key, s.tag)] = std::move(s);  // tag >> 1 is the hash's >> 1: no hashing again
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
  uint64_t seed_ = view_map_seed();
};

}  // namespace wc
