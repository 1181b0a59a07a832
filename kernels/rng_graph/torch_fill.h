// PyTorch's CUDA random fills as Philox streams, so wheelsmoke can judge an artifact's words on the
// CPU. ATen's distribution_nullary_kernel (aten/src/ATen/native/cuda/DistributionTemplates.h) runs
// a grid-stride loop: blocks of 256 threads, at most SMs x (max threads per SM / 256) blocks; thread
// t calls curand_init(seed, t, offset) and draws one Philox block (4 words) per loop trip, feeding
// `unroll` elements: trip k of thread t writes elements (k*unroll + i)*T + t, i < unroll, where T is
// the launch's thread count. The generator's offset then moves by ((numel-1)/(T*unroll)+1)*4.
//   float32 uniform_ (torch.rand): unroll 4, element = curand_uniform(word i), and 1.0 becomes 0.0
//     (ATen reverses the bounds of (0, 1] to [0, 1)).
//   int64 random_(-2**63, None) (the full range): unroll 2, element i = word 2i << 32 | word 2i+1.
#pragma once

#include <cstdint>
#include <vector>

namespace wc::rng {

// T, the threads of a fill of `numel` elements on a device with `sm_count` SMs and
// `max_threads_per_sm` threads per SM (calc_execution_policy).
uint64_t torch_fill_threads(uint64_t numel, uint32_t sm_count, uint32_t max_threads_per_sm);
// How far one fill moves the generator's offset.
uint64_t torch_fill_increment(uint64_t numel, uint64_t threads, unsigned unroll);

// The fills a generator at (seed, offset) writes; `offset` must be a multiple of 4 (PyTorch's always is).
std::vector<float> torch_uniform_f32(uint64_t seed, uint64_t offset, uint64_t numel, uint64_t threads);
std::vector<int64_t> torch_random_full64(uint64_t seed, uint64_t offset, uint64_t numel, uint64_t threads);

}  // namespace wc::rng
