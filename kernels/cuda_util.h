// What every CUDA backend of the suites shares (CUDA builds only): checked calls that throw with
// the call's name, RAII device buffers and events, the device probe, timing, peak bandwidth.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace wc::cuda {

// Throws std::runtime_error("<what>: <CUDA error string>") unless `e` is cudaSuccess.
void check(cudaError_t e, const char* what);

// Whether a driver and a device are there; else false and why.
bool device_present(std::string* why);
std::string device_name();
// Peak DRAM bandwidth in bytes/s from the driver: 2 (DDR) x memory clock x bus width.
double peak_bandwidth();

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) {
    void* p = nullptr;
    check(cudaMalloc(&p, (n ? n : 1) * sizeof(T)), "cudaMalloc");
    p_ = static_cast<T*>(p);
    check(cudaMemset(p_, 0, (n ? n : 1) * sizeof(T)), "cudaMemset");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr, o.n_ = 0; }
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  T* get() const { return p_; }
  size_t size() const { return n_; }
  void upload_bytes(const void* src, size_t bytes) {
    if (bytes > n_ * sizeof(T)) throw std::logic_error("upload larger than the device buffer");
    if (bytes) check(cudaMemcpy(p_, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to device");
  }
  std::vector<T> download() const {
    std::vector<T> v(n_);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    if (n_) check(cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    return v;
  }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

class EventPair {
 public:
  EventPair() {
    check(cudaEventCreate(&a_), "cudaEventCreate");
    if (cudaError_t e = cudaEventCreate(&b_); e != cudaSuccess) {
      cudaEventDestroy(a_);
      check(e, "cudaEventCreate");
    }
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  ~EventPair() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  void start(cudaStream_t s = nullptr) { check(cudaEventRecord(a_, s), "cudaEventRecord"); }
  float stop_ms(cudaStream_t s = nullptr) {
    check(cudaEventRecord(b_, s), "cudaEventRecord");
    check(cudaEventSynchronize(b_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a_, b_), "cudaEventElapsedTime");
    return ms;
  }

 private:
  cudaEvent_t a_{}, b_{};
};

// Median-free simple timing: one warm-up call, then the mean of `reps` calls, in ms.
template <typename F>
double time_ms(F f, int reps) {
  f();
  check(cudaDeviceSynchronize(), "warm-up");
  EventPair ev;
  ev.start();
  for (int r = 0; r < reps; ++r) f();
  return double(ev.stop_ms()) / reps;
}

}  // namespace wc::cuda
