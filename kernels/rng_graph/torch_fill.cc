#include "rng_graph/torch_fill.h"

#include <algorithm>

#include "philox.h"

namespace wc::rng {

namespace {

constexpr uint64_t kBlock = 256;

// Calls emit(element, block, i) for every element of the fill, in thread order.
template <typename Emit>
void for_each_draw(uint64_t seed, uint64_t offset, uint64_t numel, uint64_t threads, unsigned unroll, Emit emit) {
  for (uint64_t t = 0; t < threads && t < numel; ++t) {
    auto stream = philox::Stream::init(seed, t, offset);
    for (uint64_t base = t; base < numel; base += uint64_t(unroll) * threads) {
      philox::Counter words = stream.block();
      for (unsigned i = 0; i < unroll; ++i)
        if (uint64_t e = base + i * threads; e < numel) emit(e, words, i);
    }
  }
}

}  // namespace

uint64_t torch_fill_threads(uint64_t numel, uint32_t sm_count, uint32_t max_threads_per_sm) {
  uint64_t grid = (numel + kBlock - 1) / kBlock;
  uint64_t most = uint64_t(sm_count) * (max_threads_per_sm / kBlock);
  return std::min(grid, most) * kBlock;
}

uint64_t torch_fill_increment(uint64_t numel, uint64_t threads, unsigned unroll) {
  if (numel == 0 || threads == 0) return 0;
  return ((numel - 1) / (threads * unroll) + 1) * 4;
}

std::vector<float> torch_uniform_f32(uint64_t seed, uint64_t offset, uint64_t numel, uint64_t threads) {
  std::vector<float> out(numel);
  for_each_draw(seed, offset, numel, threads, 4, [&](uint64_t e, const philox::Counter& w, unsigned i) {
    float u = philox::uniform(w.w[i]);
    out[e] = u == 1.0f ? 0.0f : u;
  });
  return out;
}

std::vector<int64_t> torch_random_full64(uint64_t seed, uint64_t offset, uint64_t numel, uint64_t threads) {
  std::vector<int64_t> out(numel);
  for_each_draw(seed, offset, numel, threads, 2, [&](uint64_t e, const philox::Counter& w, unsigned i) {
    out[e] = static_cast<int64_t>((uint64_t(w.w[2 * i]) << 32) | w.w[2 * i + 1]);
  });
  return out;
}

}  // namespace wc::rng
