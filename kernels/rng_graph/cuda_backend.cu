// The CUDA backend: the fill kernel on the device, real CUDA graphs captured in thread-local mode,
// slots in device memory written in stream order before each replay. Built only when CMake finds
// a CUDA toolkit; cudart is linked statically and loads the driver at run time.
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "philox.h"
#include "rng_graph/backend.h"

#define CUDA_CHECK(expr)                                                                                      \
  do {                                                                                                        \
    cudaError_t err_ = (expr);                                                                                \
    if (err_ != cudaSuccess)                                                                                  \
      throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " + #expr + ": " + \
                               cudaGetErrorString(err_));                                                     \
  } while (0)

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

void check_launch() { CUDA_CHECK(cudaGetLastError()); }

// Slots come from one pool allocated up front: a capture's first RNG use creates its slots while
// the stream is capturing, where cudaMalloc is not allowed in the capturing thread.
class DeviceSlots : public SlotStore {
 public:
  static constexpr size_t kPool = 4096;
  DeviceSlots() {
    CUDA_CHECK(cudaMalloc(&pool_, kPool * sizeof(uint64_t)));
    CUDA_CHECK(cudaMemset(pool_, 0, kPool * sizeof(uint64_t)));
    for (size_t i = kPool; i-- > 0;) free_.push_back(pool_ + i);
  }
  ~DeviceSlots() override { cudaFree(pool_); }
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
    set_slot_kernel<<<1, 1, 0, (*streams_)[static_cast<size_t>(stream)]>>>(slot, v);
    check_launch();
  }
  std::vector<cudaStream_t>* streams_ = nullptr;

 private:
  std::mutex mu_;
  uint64_t* pool_ = nullptr;
  std::vector<uint64_t*> free_;
};

class CudaBackend : public Backend {
 public:
  CudaBackend() { slots_.streams_ = &streams_; }
  ~CudaBackend() override {
    cudaDeviceSynchronize();
    for (auto g : execs_) cudaGraphExecDestroy(g);
    for (auto b : buffers_) cudaFree(b.first);
    for (auto s : streams_) cudaStreamDestroy(s);
  }
  std::string name() const override { return "cuda"; }
  SlotStore& slots() override { return slots_; }
  int new_stream() override {
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::lock_guard<std::mutex> l(mu_);
    streams_.push_back(s);
    return static_cast<int>(streams_.size() - 1);
  }
  int alloc(size_t words) override {
    uint32_t* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(words, 1) * 4));
    CUDA_CHECK(cudaMemset(p, 0, std::max<size_t>(words, 1) * 4));
    std::lock_guard<std::mutex> l(mu_);
    buffers_.push_back({p, words});
    return static_cast<int>(buffers_.size() - 1);
  }
  void fill(int stream, int buffer, uint32_t threads, uint32_t per_thread, const PhiloxArgs& args) override {
    auto [p, n, s] = lookup(stream, buffer);
    uint32_t block = 128, grid = (threads + block - 1) / block;
    if (grid) fill_kernel<<<grid, block, 0, s>>>(p, threads, per_thread, to_dev(args));
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
    CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
    cudaGraphDestroy(g);
    std::lock_guard<std::mutex> l(mu_);
    execs_.push_back(exec);
    return static_cast<int>(execs_.size() - 1);
  }
  void replay(int stream, int graph) override {
    cudaGraphExec_t exec;
    {
      std::lock_guard<std::mutex> l(mu_);
      exec = execs_.at(graph);
    }
    CUDA_CHECK(cudaGraphLaunch(exec, stream_at(stream)));
  }
  std::vector<uint32_t> read(int buffer) override {
    CUDA_CHECK(cudaDeviceSynchronize());
    std::pair<uint32_t*, size_t> b;
    {
      std::lock_guard<std::mutex> l(mu_);
      b = buffers_.at(buffer);
    }
    std::vector<uint32_t> out(b.second);
    if (b.second) CUDA_CHECK(cudaMemcpy(out.data(), b.first, b.second * 4, cudaMemcpyDeviceToHost));
    return out;
  }

 private:
  cudaStream_t stream_at(int s) {
    std::lock_guard<std::mutex> l(mu_);
    return streams_.at(s);
  }
  std::tuple<uint32_t*, size_t, cudaStream_t> lookup(int stream, int buffer) {
    std::lock_guard<std::mutex> l(mu_);
    return {buffers_.at(buffer).first, buffers_.at(buffer).second, streams_.at(stream)};
  }

  std::mutex mu_;
  DeviceSlots slots_;
  std::vector<cudaStream_t> streams_;
  std::vector<std::pair<uint32_t*, size_t>> buffers_;
  std::vector<cudaGraphExec_t> execs_;
};

bool device_present(std::string* why) {
  // cudart says "driver version is insufficient" when there is no driver at all; say what it is.
  static const bool have_driver = [] {
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h) dlclose(h);
    return h != nullptr;
  }();
  if (!have_driver) {
    if (why) *why = "no NVIDIA driver (libcuda.so.1 cannot be loaded)";
    return false;
  }
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = std::string("no usable CUDA device: ") + cudaGetErrorString(e);
    cudaGetLastError();
    return false;
  }
  if (n == 0) {
    if (why) *why = "no CUDA device";
    return false;
  }
  return true;
}

template <typename T>
std::vector<T> fetch(T* dev, size_t n) {
  std::vector<T> out(n);
  CUDA_CHECK(cudaDeviceSynchronize());
  if (n) CUDA_CHECK(cudaMemcpy(out.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  cudaFree(dev);
  return out;
}

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
  T* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, std::max<size_t>(count, 1) * sizeof(T)));
  launch(d);
  check_launch();
  return fetch(d, count);
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
  uint32_t* d = nullptr;
  size_t n = size_t(threads) * per_thread;
  CUDA_CHECK(cudaMalloc(&d, n * 4));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  DevArgs args{0, 42, 0, nullptr, nullptr, 0};
  fill_kernel<<<(threads + 127) / 128, 128>>>(d, threads, per_thread, args);  // warm-up
  cudaEventRecord(a);
  for (int r = 0; r < reps; ++r) fill_kernel<<<(threads + 127) / 128, 128>>>(d, threads, per_thread, args);
  cudaEventRecord(b);
  CUDA_CHECK(cudaEventSynchronize(b));
  check_launch();
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaFree(d);
  return ms > 0 ? double(n) * reps / (ms / 1000.0) : 0;
}

}  // namespace wc::rng
