#include "util/hash.h"

#include <chrono>
#include <random>

namespace wc {

uint64_t process_hash_seed() {
  static const uint64_t seed = [] {
    uint64_t s = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    try {
      std::random_device rd;  // may throw where the platform has no entropy source: the clock then
      s ^= (uint64_t{rd()} << 32) ^ rd();
    } catch (...) {
    }
    return mix64(s ^ reinterpret_cast<uintptr_t>(&s));
  }();
  return seed;
}

}  // namespace wc
