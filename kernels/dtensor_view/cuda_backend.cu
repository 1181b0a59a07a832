// The dtensor_view suite on the device: each rank's local view materialised by one strided-copy
// kernel (sizes, strides and moduli per output dim) into that rank's own device buffer.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_util.h"
#include "dtensor_view/view.h"

namespace wc::dtv {
namespace {

using wc::cuda::check;
using wc::cuda::DeviceBuffer;

constexpr int kMax = 8;

struct MapArgs {
  int nd;
  int64_t sizes[kMax], strides[kMax], mods[kMax];
};

MapArgs to_args(const StridedMap& m) {
  if (m.sizes.size() > size_t(kMax)) throw ViewError("more than 8 output dims");
  MapArgs a{};
  a.nd = int(m.sizes.size());
  for (int k = 0; k < a.nd; ++k)
    a.sizes[k] = m.sizes[size_t(k)], a.strides[k] = m.strides[size_t(k)], a.mods[k] = m.mods[size_t(k)];
  return a;
}

__global__ void strided_copy_kernel(const int64_t* in, int64_t* out, int64_t n, MapArgs m) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t rem = i, off = 0;
    for (int k = m.nd - 1; k >= 0; --k) {
      int64_t idx = rem % m.sizes[k];
      rem /= m.sizes[k];
      if (m.mods[k]) idx %= m.mods[k];
      off += idx * m.strides[k];
    }
    out[i] = in[off];
  }
}

void launch(const int64_t* in, int64_t* out, int64_t n, const MapArgs& a) {
  if (!n) return;
  unsigned grid = unsigned(std::min<int64_t>((n + 255) / 256, 65535 * 16));
  strided_copy_kernel<<<grid, 256>>>(in, out, n, a);
  check(cudaGetLastError(), "strided copy kernel launch");
}

}  // namespace

bool cuda_built() { return true; }

std::optional<std::vector<Tensor>> device_local_views(const std::vector<Tensor>& locals,
                                                      const std::vector<StridedMap>& maps, std::string* why) {
  if (!wc::cuda::device_present(why)) return std::nullopt;
  std::vector<Tensor> out;
  for (size_t r = 0; r < locals.size(); ++r) {
    DeviceBuffer<int64_t> in(locals[r].data.size());
    in.upload_bytes(locals[r].data.data(), locals[r].data.size() * 8);
    int64_t n = 1;
    for (int64_t s : maps[r].sizes) n *= s;
    DeviceBuffer<int64_t> o{size_t(n)};  // this rank's own buffer
    launch(in.get(), o.get(), n, to_args(maps[r]));
    Tensor t;
    t.shape = maps[r].sizes;
    t.data = o.download();
    t.data.resize(size_t(n));
    out.push_back(std::move(t));
  }
  return out;
}

double device_strided_copy_rate(int64_t bytes, double* peak, std::string* why) {
  if (!wc::cuda::device_present(why)) return 0;
  *peak = wc::cuda::peak_bandwidth();
  int64_t side = 1;
  while ((side * 2) * (side * 2) * 8 <= bytes) side *= 2;
  Op t{"transpose", {0, 1}};
  StridedMap m = strided_map(t, {side, side}, {side, side});
  DeviceBuffer<int64_t> in{size_t(side * side)}, out{size_t(side * side)};
  MapArgs a = to_args(m);
  double ms = wc::cuda::time_ms([&] { launch(in.get(), out.get(), side * side, a); }, 10);
  return 2.0 * double(side * side) * 8 / (ms / 1e3);  // bytes read + written per second
}

}  // namespace wc::dtv
