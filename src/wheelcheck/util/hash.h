// Hashes for in-memory tables, never for anything written out (values may change between versions).
// hash_bytes: symbol names, entry names, digests, eight bytes a step, each mixed as xxHash64's round
// and tail steps mix it, then its avalanche, so every input bit reaches every output bit. It is
// fast, not keyed: names built to collide collide under every seed, so the tables that take names
// from a wheel bound their probes (util/view_map.h). mix64: a 64-bit key's finaliser (MurmurHash3's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace wc {

// Random, drawn once per process: the tables' seed, so their layout differs from run to run.
uint64_t process_hash_seed();

// Slots for an open-addressing table of `n` keys kept at most half full: a power of two, 16 at least.
inline size_t table_capacity(size_t n) {
  size_t cap = 16;
  while (cap < 2 * n) cap <<= 1;
  return cap;
}

inline uint64_t mix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDull;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ull;
  return k ^ (k >> 33);
}

inline uint64_t hash_bytes(std::string_view bytes, uint64_t seed = 0) {
  constexpr uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full, P3 = 0x165667B19E3779F9ull,
                     P4 = 0x85EBCA77C2B2AE63ull, P5 = 0x27D4EB2F165667C5ull;
  auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  const char* p = bytes.data();
  size_t n = bytes.size();
  uint64_t h = seed + P5 + n;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h ^= rotl(w * P2, 31) * P1;
    h = rotl(h, 27) * P1 + P4;
  }
  if (n >= 4) {
    uint32_t w;
    std::memcpy(&w, p, 4);
    h ^= uint64_t{w} * P1;
    h = rotl(h, 23) * P2 + P3;
    p += 4, n -= 4;
  }
  for (; n > 0; ++p, --n) {
    h ^= uint64_t{static_cast<unsigned char>(*p)} * P5;
    h = rotl(h, 11) * P1;
  }
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  return h ^ (h >> 32);
}

}  // namespace wc
