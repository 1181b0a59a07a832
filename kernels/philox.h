// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), one
// implementation for host and device, with curand's stream mapping so a CPU reference and a CUDA
// kernel produce the same 32-bit words bit for bit.
//
// curand mapping (curand_init(seed, subsequence, offset)): key = (lo32 seed, hi32 seed); the
// 128-bit counter's upper 64 bits hold the subsequence, its lower 64 bits count blocks of four
// words; `offset` skips offset/4 blocks plus offset%4 words. Every add carries across all four
// 32-bit counter words.
#pragma once

#include <stdint.h>

#if defined(__CUDACC__)
#define WC_HD __host__ __device__ __forceinline__
#else
#define WC_HD inline
#endif

namespace wc::philox {

struct Counter {
  uint32_t w[4];
};
struct Key {
  uint32_t k[2];
};

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // round multipliers
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments

WC_HD void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}

WC_HD Counter round(Counter c, Key k) {
  uint32_t hi0, lo0, hi1, lo1;
  mulhilo(kM0, c.w[0], hi0, lo0);
  mulhilo(kM1, c.w[2], hi1, lo1);
  return Counter{{hi1 ^ c.w[1] ^ k.k[0], lo1, hi0 ^ c.w[3] ^ k.k[1], lo0}};
}

// Ten rounds, key bumped between rounds (Random123 philox4x32_R with R = 10).
WC_HD Counter philox4x32_10(Counter c, Key k) {
  for (int r = 0; r < 10; ++r) {
    if (r) {
      k.k[0] += kW0;
      k.k[1] += kW1;
    }
    c = round(c, k);
  }
  return c;
}

// Adds a 64-bit value to the low 64 bits of the counter, carrying into the high 64 bits.
WC_HD void add_low(Counter& c, uint64_t v) {
  uint64_t lo = (static_cast<uint64_t>(c.w[1]) << 32) | c.w[0];
  uint64_t sum = lo + v;
  c.w[0] = static_cast<uint32_t>(sum);
  c.w[1] = static_cast<uint32_t>(sum >> 32);
  if (sum < lo) {  // carry into the upper 64 bits
    if (++c.w[2] == 0) ++c.w[3];
  }
}

// Adds to the high 64 bits (the subsequence); wraps modulo 2^64 as curand does.
WC_HD void add_high(Counter& c, uint64_t v) {
  uint64_t hi = (static_cast<uint64_t>(c.w[3]) << 32) | c.w[2];
  hi += v;
  c.w[2] = static_cast<uint32_t>(hi);
  c.w[3] = static_cast<uint32_t>(hi >> 32);
}

// A curand-compatible stream: word(i) is the i-th 32-bit value curand() returns after
// curand_init(seed, subsequence, offset).
struct Stream {
  Key key;
  Counter ctr;
  uint32_t index;  // 0..3: which word of the current block comes next

  WC_HD static Stream init(uint64_t seed, uint64_t subsequence, uint64_t offset) {
    Stream s;
    s.key = Key{{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}};
    s.ctr = Counter{{0, 0, 0, 0}};
    add_high(s.ctr, subsequence);
    add_low(s.ctr, offset / 4);
    s.index = static_cast<uint32_t>(offset % 4);
    return s;
  }
  // The next 32-bit word (curand()).
  WC_HD uint32_t next() {
    Counter out = philox4x32_10(ctr, key);
    uint32_t v = out.w[index];
    if (++index == 4) {
      index = 0;
      add_low(ctr, 1);
    }
    return v;
  }
  // Four words at once for a block-aligned stream (PyTorch kernels consume Philox this way).
  WC_HD Counter block() {
    Counter out = philox4x32_10(ctr, key);
    add_low(ctr, 1);
    return out;
  }
};

// curand_uniform: x * 2^-32 + 2^-33 in float; the range is (0, 1].
WC_HD float uniform(uint32_t x) {
  const float inv = 2.3283064365386963e-10f;  // 2^-32
  return static_cast<float>(x) * inv + inv / 2.0f;
}

}  // namespace wc::philox
