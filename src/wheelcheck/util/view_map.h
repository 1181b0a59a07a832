// A hash map from string views (entry names, digests, install paths: views of strings that
// outlive the map) to small values, in one flat array: open addressing, linear probing, at most
// half full, each slot holding the key's hash so most probes compare no bytes. The per-entry rules
// ask one per wheel of 100,000 entries; std::unordered_map made a node (an allocation) for each.
// The hash is fast, not keyed (util/hash.h): names a wheel crafted to share one hash would make
// every probe walk all of them. A probe longer than kMaxProbe (never met by chance at this load)
// moves the map into an ordered map for good: O(log n) comparisons a step, whatever the names.
// A value's address holds until the next insertion; iteration order is the table's (callers that
// report in some order sort first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "util/hash.h"

namespace wc {

template <typename V>
class ViewMap {
 public:
  static constexpr size_t kMaxProbe = 64;

  // Nothing is allocated until the first insertion (a wheel's parked facts hold an empty one).
  // `max_probe` is for tests of the ordered fallback.
  explicit ViewMap(size_t expected = 0, size_t max_probe = kMaxProbe) : max_probe_(max_probe) {
    if (expected) rehash(table_capacity(expected));
  }
  ViewMap(ViewMap&& o) noexcept { *this = std::move(o); }
  ViewMap& operator=(ViewMap&& o) noexcept {
    slots_ = std::exchange(o.slots_, {});
    ordered_ = std::move(o.ordered_);
    size_ = std::exchange(o.size_, 0);
    max_probe_ = o.max_probe_;
    seed_ = o.seed_;
    return *this;
  }

  // The value of `key`, inserted as `v` when it was not there; the flag says whether it was inserted.
  std::pair<V*, bool> try_emplace(std::string_view key, V v = V{}) {
    if (!ordered_) {
      if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? table_capacity(1) : slots_.size() * 2);
      const uint64_t h = hash_bytes(key, seed_);
      if (const size_t i = slot(key, h); i != kLong) {
        Slot& s = slots_[i];
        if (s.tag) return {&s.value, false};
        s = Slot{h | 1, key, std::move(v)};
        ++size_;
        return {&s.value, true};
      }
      to_ordered();
    }
    auto [it, fresh] = ordered_->try_emplace(key, std::move(v));
    size_ += fresh;
    return {&it->second, fresh};
  }
  V* find(std::string_view key) {
    if (ordered_) {
      auto it = ordered_->find(key);
      return it == ordered_->end() ? nullptr : &it->second;
    }
    if (slots_.empty()) return nullptr;
    const size_t i = slot(key, hash_bytes(key, seed_));
    return i != kLong && slots_[i].tag ? &slots_[i].value : nullptr;  // a long probe: not inserted
  }
  const V* find(std::string_view key) const { return const_cast<ViewMap*>(this)->find(key); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool ordered() const { return ordered_ != nullptr; }  // the fallback was taken
  // f(key, value) for each entry, in the table's order.
  template <typename F>
  void for_each(F&& f) const {
    if (ordered_) {
      for (const auto& [k, v] : *ordered_) f(k, v);
      return;
    }
    for (const Slot& s : slots_)
      if (s.tag) f(s.key, s.value);
  }

 private:
  static constexpr size_t kLong = SIZE_MAX;
  struct Slot {
    uint64_t tag = 0;  // the key's hash with the low bit set; 0: empty
    std::string_view key;
    V value{};
  };
  // The key's slot, or the empty one where it would go (`h`: its hash, or its tag); kLong when
  // neither comes within max_probe_ steps.
  size_t slot(std::string_view key, uint64_t h) const {
    const size_t mask = slots_.size() - 1;
    const uint64_t tag = h | 1;
    size_t i = static_cast<size_t>(h >> 1) & mask;
    for (size_t step = 0; step <= max_probe_; ++step, i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (!s.tag || (s.tag == tag && s.key == key)) return i;
    }
    return kLong;
  }
  void rehash(size_t cap) {
    std::vector<Slot> old(cap);
    old.swap(slots_);
    for (size_t k = 0; k < old.size(); ++k) {
      if (!old[k].tag) continue;
      const size_t i = slot(old[k].key, old[k].tag);  // tag >> 1 is the hash's >> 1: no hashing again
      if (i == kLong) {  // the keys crowd even the larger table: those placed and the rest go ordered
        to_ordered();
        for (; k < old.size(); ++k)
          if (old[k].tag) ordered_->emplace(old[k].key, std::move(old[k].value));
        return;
      }
      slots_[i] = std::move(old[k]);
    }
  }
  void to_ordered() {
    ordered_ = std::make_unique<std::map<std::string_view, V>>();
    for (Slot& s : slots_)
      if (s.tag) ordered_->emplace(s.key, std::move(s.value));
    std::vector<Slot>().swap(slots_);
  }

  std::vector<Slot> slots_;
  std::unique_ptr<std::map<std::string_view, V>> ordered_;
  size_t size_ = 0;
  size_t max_probe_ = kMaxProbe;
  uint64_t seed_ = process_hash_seed();
};

}  // namespace wc
