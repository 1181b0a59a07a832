// Orders of many keys, where a comparison sort costs more than the keys' bits take to read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wc {

// The positions 0..keys.size()-1 ordered by their key, largest first; equal keys keep their
// positions' order (what std::stable_sort by descending key gives). A radix sort, stable, 16 bits
// a pass, over only the bit ranges where the keys differ: a wheel's 100,000 entry sizes, all under
// 64 KiB, take one pass over the array instead of 1.7 million comparisons (the comparison sort of
// (size, position) pairs cost 21 M instructions more, 0.5% of such a check, all of it before the
// reading threads start). Short inputs use std::stable_sort.
std::vector<size_t> order_largest_first(const std::vector<uint64_t>& keys);

}  // namespace wc
