// The pad suite on the device: the three implementations as real kernels over one padded buffer,
// each launch counted by the host and by the producer kernel itself, and the benchmark (bytes
// moved, time, fraction of the device's peak bandwidth read from the driver).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "cuda_util.h"
#include "pad_concat/layout.h"
#include "pad_concat/pad.h"

namespace wc::pad {
namespace {

using wc::cuda::check;
using wc::cuda::DeviceBuffer;
using wc::cuda::EventPair;

constexpr int kBlock = 256;

unsigned grid_for(int64_t n) {
  int64_t g = (n + kBlock - 1) / kBlock;
  return unsigned(std::min<int64_t>(std::max<int64_t>(g, 1), 65535 * 16));
}

template <typename T>
__device__ T produce_dev(int dtype, int twice, T b) {
  if (!twice) return b;
  switch (dtype) {
    case int(DType::f32): {
      float f = __uint_as_float(uint32_t(b));
      return T(__float_as_uint(f + f));
    }
    case int(DType::f16): {
      __half_raw r;
      r.x = uint16_t(b);
      float f = __half2float(__half(r));
      __half_raw o = __half(__float2half_rn(f + f));
      return T(o.x);
    }
    case int(DType::bf16): {
      __nv_bfloat16_raw r;
      r.x = uint16_t(b);
      float f = __bfloat162float(__nv_bfloat16(r));
      __nv_bfloat16_raw o = __nv_bfloat16(__float2bfloat16_rn(f + f));
      return T(o.x);
    }
    default: return T(b + b);  // integers wrap
  }
}

// The producer: y = x + x (or a copy), written through the slice geometry; block 0 counts the launch.
template <typename T>
__global__ void producer_kernel(const T* x, T* dst, int64_t n, SliceArgs s, int dtype, int twice,
                                unsigned long long* ran) {
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(ran, 1ull);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    dst[s.dest(i)] = produce_dev<T>(dtype, twice, x[i]);
}

template <typename T>
__global__ void fill_all_kernel(T* out, int64_t n, T fill) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = fill;
}

template <typename T>
__global__ void fill_pad_kernel(T* out, SliceArgs s, T fill) {
  int64_t n = s.outer * s.amount * s.inner;
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < n; k += int64_t(gridDim.x) * blockDim.x)
    out[s.pad_index(k)] = fill;
}

template <typename T>
__global__ void interior_kernel(const T* y, T* out, Interior in) {
  int64_t n = in.count();
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t s, d;
    in.map(i, &s, &d);
    out[d] = y[s];
  }
}

// The second consumer: per (outer, inner) the wrapping sum of element bits along the slice,
// read through the strided view (base, stride0 = padded row, stride1 = inner, stride2 = 1).
template <typename T>
__global__ void consumer_kernel(const T* view, int64_t outer, int64_t len, int64_t inner, int64_t stride0,
                                int64_t stride1, unsigned long long* out) {
  int64_t n = outer * inner;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n; t += int64_t(gridDim.x) * blockDim.x) {
    int64_t o = t / inner, i = t % inner;
    unsigned long long s = 0;
    for (int64_t j = 0; j < len; ++j) s += (unsigned long long)view[o * stride0 + j * stride1 + i];
    out[t] = s;
  }
}

struct Counters {
  DeviceBuffer<unsigned long long> ran{1};
  uint64_t launches = 0;
  uint64_t read() const { return ran.download().at(0); }
};

template <typename T>
class Impl {
 public:
  static void producer(const T* x, T* dst, int64_t n, const Slice& s, DType d, Producer p, Counters& c,
                       cudaStream_t st = nullptr) {
    ++c.launches;
    producer_kernel<T>
        <<<grid_for(n), kBlock, 0, st>>>(x, dst, n, slice_args(s), int(d), p == Producer::twice ? 1 : 0, c.ran.get());
    check(cudaGetLastError(), "producer kernel launch");
  }
  static void fill_all(T* out, int64_t n, uint64_t fill, cudaStream_t st = nullptr) {
    if (n) fill_all_kernel<T><<<grid_for(n), kBlock, 0, st>>>(out, n, T(fill));
    check(cudaGetLastError(), "fill kernel launch");
  }
  static void fill_pad(T* out, const Slice& s, uint64_t fill, cudaStream_t st = nullptr) {
    if (s.pad_count()) fill_pad_kernel<T><<<grid_for(s.pad_count()), kBlock, 0, st>>>(out, slice_args(s), T(fill));
    check(cudaGetLastError(), "pad-region fill kernel launch");
  }
  static void interior(const T* y, T* out, const Interior& in, cudaStream_t st = nullptr) {
    if (in.count()) interior_kernel<T><<<grid_for(in.count()), kBlock, 0, st>>>(y, out, in);
    check(cudaGetLastError(), "interior copy kernel launch");
  }
  static void consumer(const T* view, const Slice& s, unsigned long long* out, cudaStream_t st = nullptr) {
    int64_t n = s.outer * s.inner;
    if (n)
      consumer_kernel<T>
          <<<grid_for(n), kBlock, 0, st>>>(view, s.outer, s.len, s.inner, (s.len + s.amount) * s.inner, s.inner, out);
    check(cudaGetLastError(), "consumer kernel launch");
  }
};

template <typename T>
Tensor download(const DeviceBuffer<T>& b, DType d, const std::vector<int64_t>& shape) {
  Tensor t;
  t.dtype = d;
  t.shape = shape;
  auto v = b.download();
  t.data.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

template <typename T>
DeviceBuffer<T> upload(const Tensor& x) {
  DeviceBuffer<T> b{size_t(x.numel())};
  b.upload_bytes(x.data.data(), x.data.size());
  return b;
}

template <typename T>
PadRun run_plain(const Tensor& x, Producer p, const std::vector<int64_t>& pad, uint64_t fill) {
  PadRun r;
  Counters c;
  auto dx = upload<T>(x);
  DeviceBuffer<T> y{size_t(x.numel())};
  Impl<T>::producer(dx.get(), y.get(), x.numel(), Slice::whole(x.shape), x.dtype, p, c);
  auto shape = padded_shape(x.shape, pad);
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  DeviceBuffer<T> out{size_t(n)};
  Impl<T>::fill_all(out.get(), n, fill);
  Impl<T>::interior(y.get(), out.get(), Interior::of(x.shape, pad));
  check(cudaDeviceSynchronize(), "plain pad");
  r.out = download(out, x.dtype, shape);
  r.producer_launches = c.launches;
  r.producer_ran = c.read();
  r.buffer_base = r.view_base = out.get();
  return r;
}

template <typename T>
PadRun run_concat(const Tensor& x, Producer p, CatRewrite rw, uint64_t fill, bool with_consumer) {
  PadRun r;
  Counters c;
  Slice s = Slice::of(x.shape, rw);
  auto dx = upload<T>(x);
  auto shape = s.padded_shape();
  DeviceBuffer<T> out{size_t(s.outer * (s.len + s.amount) * s.inner)};
  Impl<T>::fill_pad(out.get(), s, fill);
  Impl<T>::producer(dx.get(), out.get(), x.numel(), s, x.dtype, p, c);
  r.buffer_base = out.get();
  if (with_consumer) {
    View v = s.view();
    const T* view = out.get() + v.offset;  // the unpadded slice, aliasing the padded buffer
    DeviceBuffer<unsigned long long> sums{size_t(s.outer * s.inner)};
    Impl<T>::consumer(view, s, sums.get());
    check(cudaDeviceSynchronize(), "multi-consumer pad");
    auto got = sums.download();
    r.consumer.assign(got.begin(), got.end());
    r.view_base = view;
    r.view_sizes = v.sizes;
    r.view_strides = v.strides;
  }
  check(cudaDeviceSynchronize(), "pad as concatenation");
  r.out = download(out, x.dtype, shape);
  r.producer_launches = c.launches;
  r.producer_ran = c.read();
  return r;
}

template <typename F>
auto by_width(DType d, F f) {
  switch (dtype_size(d)) {
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    default: return f(uint64_t{});
  }
}

class CudaPad : public PadBackend {
 public:
  std::string name() const override { return "cuda"; }
  PadRun plain(const Tensor& x, Producer p, const std::vector<int64_t>& pad, uint64_t fill) override {
    return by_width(x.dtype, [&](auto t) { return run_plain<decltype(t)>(x, p, pad, fill); });
  }
  PadRun concat(const Tensor& x, Producer p, CatRewrite r, uint64_t fill) override {
    return by_width(x.dtype, [&](auto t) { return run_concat<decltype(t)>(x, p, r, fill, false); });
  }
  PadRun multi_consumer(const Tensor& x, Producer p, CatRewrite r, uint64_t fill) override {
    return by_width(x.dtype, [&](auto t) { return run_concat<decltype(t)>(x, p, r, fill, true); });
  }
};

}  // namespace

std::unique_ptr<PadBackend> make_cuda_backend(std::string* why) {
  if (!wc::cuda::device_present(why)) return nullptr;
  return std::make_unique<CudaPad>();
}

std::vector<PadBench> device_pad_bench(const std::vector<int64_t>& sizes, DeviceBandwidth* bw, std::string* why) {
  std::vector<PadBench> out;
  if (!wc::cuda::device_present(why)) return out;
  *bw = {wc::cuda::peak_bandwidth(), wc::cuda::device_name()};
  using T = uint32_t;  // float32
  const int64_t cols = 1000, padded = 1024;
  for (int64_t bytes : sizes) {
    PadBench b;
    int64_t rows = std::max<int64_t>(1, bytes / (padded * 4));
    b.bytes = rows * padded * 4;
    Slice s = Slice::of({rows, cols}, CatRewrite{1, padded - cols});
    Interior in = Interior::of({rows, cols}, {0, padded - cols});
    DeviceBuffer<T> x{size_t(rows * cols)}, y{size_t(rows * cols)}, o{size_t(rows * padded)};
    DeviceBuffer<unsigned long long> sums{size_t(rows)};
    check(cudaMemset(x.get(), 0, size_t(rows * cols) * 4), "memset");
    Counters c;
    const int64_t n = rows * cols;
    auto plain = [&] {
      Impl<T>::producer(x.get(), y.get(), n, Slice::whole({rows, cols}), DType::f32, Producer::twice, c);
      Impl<T>::fill_all(o.get(), rows * padded, 0);
      Impl<T>::interior(y.get(), o.get(), in);
    };
    auto concat = [&] {
      Impl<T>::fill_pad(o.get(), s, 0);
      Impl<T>::producer(x.get(), o.get(), n, s, DType::f32, Producer::twice, c);
    };
    auto multi_plain = [&] {  // without the rewrite the second consumer reads the producer's own buffer
      plain();
      Slice w = Slice::of({rows, cols}, CatRewrite{1, 0});
      Impl<T>::consumer(y.get(), w, sums.get());
    };
    auto multi_concat = [&] {
      concat();
      Impl<T>::consumer(o.get(), s, sums.get());
    };
    int reps = bytes >= (int64_t(256) << 20) ? 5 : 20;
    b.ms_plain = wc::cuda::time_ms(plain, reps);
    b.ms_concat = wc::cuda::time_ms(concat, reps);
    b.ms_multi_plain = wc::cuda::time_ms(multi_plain, reps);
    b.ms_multi_concat = wc::cuda::time_ms(multi_concat, reps);
    const double in_b = double(n) * 4, out_b = double(rows * padded) * 4, pad_b = out_b - in_b;
    b.moved_plain = (in_b + in_b) + out_b + (in_b + in_b);  // producer r+w, fill w, interior r+w
    b.moved_concat = (in_b + in_b) + pad_b;                 // producer r+w into the slice, pad fill w
    out.push_back(b);
  }
  return out;
}

}  // namespace wc::pad
