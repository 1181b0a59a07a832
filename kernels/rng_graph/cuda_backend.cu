// The CUDA backend: the fill kernel on the device, real CUDA graphs captured in thread-local mode,
// slots in device memory written in stream order before each replay. Built only when CMake finds
// a CUDA toolkit; cudart is linked statically and loads the driver at run time.
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include <memory>

#include "philox.h"
#include "rng_graph/backend.h"

#include "cuda_util.h"

// Every CUDA call is checked; the message names the call and where.
#define CUDA_CHECK(expr) wc::cuda::check((expr), #expr " (" __FILE__ ")")

namespace wc::rng {
namespace {

struct DevArgs {
  int captured;
  uint64_t seed, offset;
  const uint64_t* seed_ptr;
  const uint64_t* offset_ptr;
  uint64_t intragraph;
};

DevArgs to_dev(const PhiloxArgs& a) {
  return DevArgs{a.captured ? 1 : 0, a.seed, a.offset, a.seed_ptr, a.offset_ptr, a.offset_intragraph};
}

__global__ void fill_kernel(uint32_t* out, uint32_t threads, uint32_t per_thread, DevArgs a) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  uint64_t seed = a.captured ? *a.seed_ptr : a.seed;
  uint64_t offset = a.captured ? *a.offset_ptr + a.intragraph : a.offset;
  auto s = philox::Stream::init(seed, t, offset);
  for (uint32_t j = 0; j < per_thread; ++j) out[size_t(t) * per_thread + j] = s.next();
}

// curand's own generator doing the same job: curand_init(seed, t, 0), then per_thread curand().
__global__ void curand_fill_kernel(uint32_t* out, uint32_t threads, uint32_t per_thread, uint64_t seed) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  curandStatePhilox4_32_10_t st;
  curand_init(seed, t, 0, &st);
  for (uint32_t j = 0; j < per_thread; ++j) out[size_t(t) * per_thread + j] = curand(&st);
}

__global__ void set_slot_kernel(uint64_t* slot, uint64_t v) { *slot = v; }

__global__ void add_one_kernel(uint32_t* b, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) ++b[i];
}

__global__ void philox_stream_kernel(uint32_t* out, uint64_t seed, uint64_t subsequence, uint64_t offset,
                                     size_t count) {
  auto s = philox::Stream::init(seed, subsequence, offset);
  for (size_t i = 0; i < count; ++i) out[i] = s.next();
}

__global__ void curand_stream_kernel(uint32_t* out, float* uni, uint64_t seed, uint64_t subsequence, uint64_t offset,
                                     size_t count) {
  curandStatePhilox4_32_10_t st;
  curand_init(seed, subsequence, offset, &st);
  for (size_t i = 0; i < count; ++i) {
    if (uni)
      uni[i] = curand_uniform(&st);
    else
      out[i] = curand(&st);
  }
}

void check_launch() { wc::cuda::check(cudaGetLastError(), "kernel launch"); }

using wc::cuda::DeviceBuffer;

// Slots come from one pool allocated up front: a capture's first RNG use creates its slots while
// the stream is capturing, where cudaMalloc is not allowed in the capturing thread.
class DeviceSlots : public SlotStore {
 public:
  static constexpr size_t kPool = 4096;
  // `stream_of` resolves a stream id under the backend's lock (the table may grow concurrently).
  explicit DeviceSlots(std::function<cudaStream_t(int)> stream_of) : pool_(kPool), stream_of_(std::move(stream_of)) {
    for (size_t i = kPool; i-- > 0;) free_.push_back(pool_.get() + i);
  }
  uint64_t* alloc_slot() override {
    std::lock_guard<std::mutex> l(mu_);
    if (free_.empty()) throw std::runtime_error("RNG slot pool exhausted (" + std::to_string(kPool) + " slots)");
    uint64_t* p = free_.back();
    free_.pop_back();
    return p;
  }
  void free_slot(uint64_t* p) override {
    std::lock_guard<std::mutex> l(mu_);
    free_.push_back(p);
  }
  void write(uint64_t* slot, uint64_t v, int stream) override {
    set_slot_kernel<<<1, 1, 0, stream_of_(stream)>>>(slot, v);
    check_launch();
  }

 private:
  std::mutex mu_;
  DeviceBuffer<uint64_t> pool_;
  std::function<cudaStream_t(int)> stream_of_;
  std::vector<uint64_t*> free_;
};

struct StreamDeleter {
  void operator()(CUstream_st* s) const { cudaStreamDestroy(s); }
};
struct ExecDeleter {
  void operator()(CUgraphExec_st* g) const { cudaGraphExecDestroy(g); }
};
using StreamPtr = std::unique_ptr<CUstream_st, StreamDeleter>;
using ExecPtr = std::unique_ptr<CUgraphExec_st, ExecDeleter>;

class CudaBackend : public Backend {
 public:
  CudaBackend() : slots_([this](int s) { return stream_at(s); }) {}
  ~CudaBackend() override { cudaDeviceSynchronize(); }  // then the members free graphs, buffers, streams
  std::string name() const override { return "cuda"; }
  SlotStore& slots() override { return slots_; }
  int new_stream() override {
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    StreamPtr owned(s);
    std::lock_guard<std::mutex> l(mu_);
    streams_.push_back(std::move(owned));
    return static_cast<int>(streams_.size() - 1);
  }
  int alloc(size_t words) override {
    auto b = std::make_unique<DeviceBuffer<uint32_t>>(words);
    std::lock_guard<std::mutex> l(mu_);
    buffers_.push_back(std::move(b));
    return static_cast<int>(buffers_.size() - 1);
  }
  void fill(int stream, int buffer, uint32_t threads, uint32_t per_thread, const PhiloxArgs& args) override {
    auto [p, n, s] = lookup(stream, buffer);
    uint32_t block = 128, grid = (threads + block - 1) / block;
    if (grid && per_thread) fill_kernel<<<grid, block, 0, s>>>(p, threads, per_thread, to_dev(args));
    check_launch();
  }
  void add_one(int stream, int buffer) override {
    auto [p, n, s] = lookup(stream, buffer);
    if (n) add_one_kernel<<<unsigned((n + 255) / 256), 256, 0, s>>>(p, n);
    check_launch();
  }
  void begin_capture(int stream) override {
    CUDA_CHECK(cudaStreamBeginCapture(stream_at(stream), cudaStreamCaptureModeThreadLocal));
  }
  int end_capture(int stream) override {
    cudaGraph_t g;
    CUDA_CHECK(cudaStreamEndCapture(stream_at(stream), &g));
    cudaGraphExec_t exec;
    cudaError_t e = cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    CUDA_CHECK(e);
    ExecPtr owned(exec);
    std::lock_guard<std::mutex> l(mu_);
    execs_.push_back(std::move(owned));
    return static_cast<int>(execs_.size() - 1);
  }
  void replay(int stream, int graph) override {
    cudaGraphExec_t exec;
    {
      std::lock_guard<std::mutex> l(mu_);
      exec = execs_.at(size_t(graph)).get();
    }
    CUDA_CHECK(cudaGraphLaunch(exec, stream_at(stream)));
  }
  std::vector<uint32_t> read(int buffer) override {
    const DeviceBuffer<uint32_t>* b;
    {
      std::lock_guard<std::mutex> l(mu_);
      b = buffers_.at(size_t(buffer)).get();
    }
    return b->download();  // synchronizes the device first
  }

 private:
  cudaStream_t stream_at(int s) {
    std::lock_guard<std::mutex> l(mu_);
    return streams_.at(size_t(s)).get();
  }
  std::tuple<uint32_t*, size_t, cudaStream_t> lookup(int stream, int buffer) {
    std::lock_guard<std::mutex> l(mu_);
    const auto& b = buffers_.at(size_t(buffer));
    return {b->get(), b->size(), streams_.at(size_t(stream)).get()};
  }

  std::mutex mu_;
  // Declared in destruction order: graphs, then buffers and slots, then the streams they ran on.
  std::vector<StreamPtr> streams_;
  DeviceSlots slots_;
  std::vector<std::unique_ptr<DeviceBuffer<uint32_t>>> buffers_;
  std::vector<ExecPtr> execs_;
};

using wc::cuda::device_present;

}  // namespace

bool cuda_built() { return true; }

std::unique_ptr<Backend> make_cuda_backend(std::string* why) {
  if (!device_present(why)) return nullptr;
  return std::make_unique<CudaBackend>();
}

namespace {

// Runs a one-thread kernel that writes `count` values of T to a device buffer, and fetches them.
template <typename T, typename Launch>
std::vector<T> single_thread(size_t count, std::string* why, Launch launch) {
  if (!device_present(why)) return {};
  DeviceBuffer<T> d(count);
  launch(d.get());
  check_launch();
  return d.download();
}

}  // namespace

std::vector<uint32_t> device_philox_stream(uint64_t seed, uint64_t subsequence, uint64_t offset, size_t count,
                                           std::string* why) {
  return single_thread<uint32_t>(
      count, why, [&](uint32_t* d) { philox_stream_kernel<<<1, 1>>>(d, seed, subsequence, offset, count); });
}

std::vector<uint32_t> device_curand_stream(uint64_t seed, uint64_t subsequence, uint64_t offset, size_t count,
                                           std::string* why) {
  return single_thread<uint32_t>(
      count, why, [&](uint32_t* d) { curand_stream_kernel<<<1, 1>>>(d, nullptr, seed, subsequence, offset, count); });
}

std::vector<float> device_curand_uniform(uint64_t seed, uint64_t subsequence, uint64_t offset, size_t count,
                                         std::string* why) {
  return single_thread<float>(
      count, why, [&](float* d) { curand_stream_kernel<<<1, 1>>>(nullptr, d, seed, subsequence, offset, count); });
}

double device_fill_rate(uint32_t threads, uint32_t per_thread, int reps, std::string* why) {
  if (!device_present(why)) return 0;
  size_t n = size_t(threads) * per_thread;
  DeviceBuffer<uint32_t> d(n);
  DevArgs args{0, 42, 0, nullptr, nullptr, 0};
  double ms = wc::cuda::time_ms(
      [&] {
        fill_kernel<<<(threads + 127) / 128, 128>>>(d.get(), threads, per_thread, args);
        check_launch();
      },
      reps);
  return ms > 0 ? double(n) / (ms / 1000.0) : 0;
}

double device_curand_fill_rate(uint32_t threads, uint32_t per_thread, int reps, std::string* why) {
  if (!device_present(why)) return 0;
  size_t n = size_t(threads) * per_thread;
  DeviceBuffer<uint32_t> d(n);
  double ms = wc::cuda::time_ms(
      [&] {
        curand_fill_kernel<<<(threads + 127) / 128, 128>>>(d.get(), threads, per_thread, 42);
        check_launch();
      },
      reps);
  return ms > 0 ? double(n) / (ms / 1000.0) : 0;
}

}  // namespace wc::rng
