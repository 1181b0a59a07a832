#include "util/order.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace wc {

std::vector<size_t> order_largest_first(const std::vector<uint64_t>& keys) {
  const size_t n = keys.size();
  std::vector<size_t> order(n);
  // Below this, a pass's 65,536 counters cost more than the comparisons they save.
  constexpr size_t kRadixFrom = 4096;
  if (n < kRadixFrom) {
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] > keys[b]; });
    return order;
  }
  // Sorted ascending by the complement: the largest key first, and a stable LSD radix sort keeps
  // the positions of equal keys in order. Each pass carries the key with its position, so no pass
  // reads the keys through the positions (a cache miss each).
  std::vector<std::pair<uint64_t, size_t>> cur(n), next(n);
  uint64_t any = 0, all = ~uint64_t{0};
  for (size_t i = 0; i < n; ++i) {
    cur[i] = {~keys[i], i};
    any |= cur[i].first;
    all &= cur[i].first;
  }
  const uint64_t differ = any ^ all;  // the bits some two keys do not share
  std::vector<size_t> start(size_t{1} << 16);
  for (unsigned shift = 0; shift < 64; shift += 16) {
    if (((differ >> shift) & 0xFFFF) == 0) continue;  // one digit for all: the pass would move nothing
    std::fill(start.begin(), start.end(), size_t{0});
    for (const auto& kv : cur) ++start[(kv.first >> shift) & 0xFFFF];
    size_t at = 0;
    for (auto& s : start) at += std::exchange(s, at);
    for (const auto& kv : cur) next[start[(kv.first >> shift) & 0xFFFF]++] = kv;
    cur.swap(next);
  }
  for (size_t i = 0; i < n; ++i) order[i] = cur[i].second;
  return order;
}

}  // namespace wc
