// A hash map from string views (entry names, digests, install paths: views of strings that
// outlive the map) to small values: the items in one array in insertion order, and an open-addressing
// index over them (linear probing, at most half full) whose 8-byte slots hold the item's place and
// 32 bits of the key's hash, so most probes compare no bytes and eight slots share a cache line.
// The per-entry rules ask one per wheel of 100,000 entries; std::unordered_map made a node (an
// allocation) for each, and slots holding the key and value were four times the size to fault in.
// The hash is fast, not keyed (util/hash.h): names a wheel crafted to share one hash would make
// every probe walk all of them. A probe longer than kMaxProbe (never met by chance at this load)
// moves the map into an ordered map for good: O(log n) comparisons a step, whatever the names.
// A value's address holds until the next insertion; iteration is in insertion order while the
// map is hashed, in key order once it is ordered (callers that report in some order sort first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "util/hash.h"
#include "util/memory.h"

namespace wc {

template <typename V>
class ViewMap {
 public:
  static constexpr size_t kMaxProbe = 64;

  // Nothing is allocated until the first insertion (a wheel's parked facts hold an empty one).
  // `max_probe` is for tests of the ordered fallback.
  explicit ViewMap(size_t expected = 0, size_t max_probe = kMaxProbe) : max_probe_(max_probe) {
    if (expected) {
      reserve_filled_once(items_, expected);
      rehash(table_capacity(expected));
    }
  }
  ViewMap(ViewMap&& o) noexcept { *this = std::move(o); }
  ViewMap& operator=(ViewMap&& o) noexcept {
    items_ = std::exchange(o.items_, {});
    slots_ = std::exchange(o.slots_, {});
    ordered_ = std::move(o.ordered_);
    size_ = std::exchange(o.size_, 0);
    max_probe_ = o.max_probe_;
    seed_ = o.seed_;
    return *this;
  }

  // The value of `key`, inserted as `v` when it was not there; the flag says whether it was inserted.
  std::pair<V*, bool> try_emplace(std::string_view key, V v = V{}) {
    return try_emplace_hashed(key, ordered_ ? 0 : hash(key), std::move(v));
  }
  V* find(std::string_view key) { return find_hashed(key, ordered_ || slots_.empty() ? 0 : hash(key)); }
  const V* find(std::string_view key) const { return const_cast<ViewMap*>(this)->find(key); }

  // For loops over many keys (a table of 100,000 names is larger than the caches, and each probe
  // waits for a slot from memory): hash(key) taken ahead, prefetch(h) a few keys before the key's
  // turn, then the *_hashed calls, which take that hash instead of hashing again. Every ViewMap
  // hashes with the process's seed, so one key's hash serves every table.
  uint64_t hash(std::string_view key) const { return hash_bytes(key, seed_); }
  void prefetch(uint64_t h) const {
    if (!slots_.empty()) __builtin_prefetch(slots_.data() + (static_cast<size_t>(h) & (slots_.size() - 1)));
  }
  std::pair<V*, bool> try_emplace_hashed(std::string_view key, uint64_t h, V v = V{}) {
    if (!ordered_ && items_.size() >= kMaxItems) to_ordered();  // places no longer fit a slot
    if (!ordered_ && 2 * (items_.size() + 1) > slots_.size())
      rehash(slots_.empty() ? table_capacity(1) : slots_.size() * 2);  // may go ordered
    if (!ordered_) {
      if (const size_t i = slot(key, h); i != kLong) {
        if (const uint64_t s = slots_[i]) return {&items_[place(s)].value, false};
        items_.push_back(Item{key, std::move(v)});
        slots_[i] = (h & kTagMask) | items_.size();  // the place + 1: a used slot is never 0
        ++size_;
        return {&items_.back().value, true};
      }
      to_ordered();
    }
    auto [it, fresh] = ordered_->try_emplace(key, std::move(v));
    size_ += fresh;
    return {&it->second, fresh};
  }
  V* find_hashed(std::string_view key, uint64_t h) {
    if (ordered_) {
      auto it = ordered_->find(key);
      return it == ordered_->end() ? nullptr : &it->second;
    }
    if (slots_.empty()) return nullptr;
    const size_t i = slot(key, h);
    if (i == kLong) return nullptr;  // a long probe: never inserted (it would have gone ordered)
    const uint64_t s = slots_[i];
    return s ? &items_[place(s)].value : nullptr;
  }
  const V* find_hashed(std::string_view key, uint64_t h) const {
    return const_cast<ViewMap*>(this)->find_hashed(key, h);
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool ordered() const { return ordered_ != nullptr; }  // the fallback was taken
  // f(key, value) for each entry: in insertion order, or in key order once ordered.
  template <typename F>
  void for_each(F&& f) const {
    if (ordered_) {
      for (const auto& [k, v] : *ordered_) f(k, v);
      return;
    }
    for (const Item& it : items_) f(it.key, it.value);
  }

 private:
  static constexpr size_t kLong = SIZE_MAX;
  static constexpr uint64_t kTagMask = 0xFFFFFFFF00000000ull;  // the hash's high half; the low: the place + 1
  static constexpr size_t kMaxItems = 0xFFFFFFFEu;
  struct Item {
    std::string_view key;
    V value;
  };
  static size_t place(uint64_t s) { return static_cast<size_t>(s & ~kTagMask) - 1; }
  // The key's slot, or the empty one where it would go (`h`: its hash; the low bits pick the
  // first slot, the high half is the tag); kLong when neither comes within max_probe_ steps.
  size_t slot(std::string_view key, uint64_t h) const {
    const size_t mask = slots_.size() - 1;
    const uint64_t tag = h & kTagMask;
    size_t i = static_cast<size_t>(h) & mask;
    for (size_t step = 0; step <= max_probe_; ++step, i = (i + 1) & mask) {
      const uint64_t s = slots_[i];
      if (!s || ((s & kTagMask) == tag && items_[place(s)].key == key)) return i;
    }
    return kLong;
  }
  // A larger index over the same items (their hashes are taken again: only a map given no size
  // up front grows).
  void rehash(size_t cap) {
    std::vector<uint64_t>().swap(slots_);
    reserve_filled_once(slots_, cap);  // before the zeros touch it
    slots_.resize(cap, 0);
    for (size_t k = 0; k < items_.size(); ++k) {
      const uint64_t h = hash_bytes(items_[k].key, seed_);
      const size_t i = slot(items_[k].key, h);
      if (i == kLong) {  // the keys crowd even the larger table: all go ordered
        to_ordered();
        return;
      }
      slots_[i] = (h & kTagMask) | (k + 1);
    }
  }
  void to_ordered() {
    ordered_ = std::make_unique<std::map<std::string_view, V>>();
    for (Item& it : items_) ordered_->emplace(it.key, std::move(it.value));
    std::vector<Item>().swap(items_);
    std::vector<uint64_t>().swap(slots_);
  }

  std::vector<Item> items_;      // insertion order
  std::vector<uint64_t> slots_;  // 0: empty; else the hash's high half | the item's place + 1
  std::unique_ptr<std::map<std::string_view, V>> ordered_;
  size_t size_ = 0;
  size_t max_probe_ = kMaxProbe;
  uint64_t seed_ = process_hash_seed();
};

// A loop's keys hashed a few keys ahead of their turn: at(i), asked for i = 0, 1, 2, ... in turn, is
// hash_of(i), and hash_of(i + kAhead) is taken meanwhile and handed to ahead(h), which prefetches
// its slot in the tables the loop probes (ViewMap::prefetch). Eight probes are then in flight
// instead of one.
template <typename HashOf, typename Ahead>
class HashesAhead {
 public:
  static constexpr size_t kAhead = 8;
  HashesAhead(size_t n, HashOf hash_of, Ahead ahead) : n_(n), hash_of_(std::move(hash_of)), ahead_(std::move(ahead)) {
    for (size_t i = 0; i < kAhead && i < n_; ++i) ahead_(ring_[i] = hash_of_(i));
  }
  uint64_t at(size_t i) {
    const uint64_t h = ring_[i % kAhead];
    if (i + kAhead < n_) ahead_(ring_[i % kAhead] = hash_of_(i + kAhead));
    return h;
  }

 private:
  size_t n_;
  HashOf hash_of_;
  Ahead ahead_;
  uint64_t ring_[kAhead] = {};
};

}  // namespace wc
