#include "util/view_map.h"

#include <random>

namespace wc {

uint64_t view_map_seed() {
  static const uint64_t seed = [] {
    std::random_device rd;
    return (uint64_t{rd()} << 32) ^ rd();
  }();
  return seed;
}

}  // namespace wc
