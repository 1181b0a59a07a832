// A hash map from 32-bit keys (string-table offsets, symbol indices) to small values, in two flat
// arrays: open addressing, linear probing, at most half full. The symbol readers ask one per name
// of a table of hundreds of thousands; std::unordered_map made a node (an allocation) for each.
// Keys come from the file, so the slot is a seeded mix (util/hash.h): offsets chosen to crowd one
// run of slots on this machine crowd nothing on the next. A value's address holds until the next
// insertion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "util/hash.h"

namespace wc {

template <typename V>
class U32Map {
 public:
  explicit U32Map(size_t expected = 0) { rehash(table_capacity(expected)); }

  // The value of `key`, inserted as `v` when it was not there; the flag says whether it was inserted.
  std::pair<V*, bool> try_emplace(uint32_t key, V v = V{}) {
    if (2 * (size_ + 1) > keys_.size()) rehash(keys_.size() * 2);
    size_t i = slot(key);
    if (keys_[i] == key) return {&values_[i], false};
    keys_[i] = key;
    values_[i] = std::move(v);
    ++size_;
    return {&values_[i], true};
  }
  const V* find(uint32_t key) const {
    size_t i = slot(key);
    return keys_[i] == key ? &values_[i] : nullptr;
  }
  V* find(uint32_t key) { return const_cast<V*>(std::as_const(*this).find(key)); }
  bool insert(uint32_t key) { return try_emplace(key).second; }  // as a set: true when new
  size_t size() const { return size_; }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;  // no 32-bit key
  // The key's slot, or the empty one where it would go.
  size_t slot(uint32_t key) const {
    const size_t mask = keys_.size() - 1;
    size_t i = static_cast<size_t>(mix64(key ^ seed_) >> shift_) & mask;  // seeded: keys cannot be aimed at one run
    while (keys_[i] != kEmpty && keys_[i] != key) i = (i + 1) & mask;
    return i;
  }
  void rehash(size_t cap) {
    std::vector<uint64_t> keys(cap, kEmpty);
    std::vector<V> values(cap);
    keys.swap(keys_);
    values.swap(values_);
    shift_ = 64;
    for (size_t c = cap; c > 1; c >>= 1) --shift_;
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != kEmpty) {
        size_t j = slot(static_cast<uint32_t>(keys[i]));
        keys_[j] = keys[i];
        values_[j] = std::move(values[i]);
      }
  }

  std::vector<uint64_t> keys_;
  std::vector<V> values_;
  size_t size_ = 0;
  int shift_ = 60;
  uint64_t seed_ = process_hash_seed();
};

}  // namespace wc
