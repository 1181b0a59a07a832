// Index arithmetic shared by the host and the device implementations of the pad suite: where the
// producer writes (the slice of the padded buffer), which elements are pad, the interior a plain
// pad copies, and the consumer's strided view. Plain structs of fixed size, passed to kernels by value.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#ifdef __CUDACC__
#define WC_HD __host__ __device__
#else
#define WC_HD
#endif

namespace wc::pad {

constexpr int kMaxDims = 8;

// A strided view: element (a, b, c) at offset + a*strides[0] + b*strides[1] + c*strides[2].
struct View {
  int64_t offset = 0;
  std::vector<int64_t> sizes, strides;
};

// The rewrite's geometry: x viewed as [outer, len, inner]; the padded buffer as [outer, len + amount, inner].
struct Slice {
  int64_t outer = 1, len = 0, inner = 1, amount = 0;
  std::vector<int64_t> shape;  // host only (not read on the device)
  int dim = 0;

  static Slice whole(const std::vector<int64_t>& shape) {
    Slice s;
    s.shape = shape;
    s.len = 1;
    for (int64_t v : shape) s.len *= v;
    return s;
  }
  template <typename R>
  static Slice of(const std::vector<int64_t>& shape, R rw) {
    if (rw.dim < 0 || size_t(rw.dim) >= shape.size()) throw std::invalid_argument("pad dim out of range");
    Slice s;
    s.shape = shape;
    s.dim = rw.dim;
    s.amount = rw.amount;
    for (int k = 0; k < rw.dim; ++k) s.outer *= shape[size_t(k)];
    s.len = shape[size_t(rw.dim)];
    for (size_t k = size_t(rw.dim) + 1; k < shape.size(); ++k) s.inner *= shape[k];
    return s;
  }
  std::vector<int64_t> padded_shape() const {
    std::vector<int64_t> p = shape;
    if (!p.empty()) p[size_t(dim)] += amount;
    return p;
  }
  View view() const { return View{0, {outer, len, inner}, {(len + amount) * inner, inner, 1}}; }
  int64_t pad_count() const { return outer * amount * inner; }
  int64_t pad_index(int64_t k) const {
    int64_t o = k / (amount * inner), r = k % (amount * inner);
    return o * (len + amount) * inner + len * inner + r;
  }
  int64_t dest(int64_t i) const {
    int64_t o = i / (len * inner), r = i % (len * inner);
    return o * (len + amount) * inner + r;
  }
};

// The same geometry for a kernel (no std::vector on the device).
struct SliceArgs {
  int64_t outer, len, inner, amount;
  WC_HD int64_t pad_index(int64_t k) const {
    int64_t o = k / (amount * inner), r = k % (amount * inner);
    return o * (len + amount) * inner + len * inner + r;
  }
  WC_HD int64_t dest(int64_t i) const {
    int64_t o = i / (len * inner), r = i % (len * inner);
    return o * (len + amount) * inner + r;
  }
};
inline SliceArgs slice_args(const Slice& s) { return SliceArgs{s.outer, s.len, s.inner, s.amount}; }

// What a plain pad copies: the input elements that land inside the output (negative pads crop).
struct Interior {
  int nd = 0;
  int64_t count_[kMaxDims] = {}, src_start[kMaxDims] = {}, src_stride[kMaxDims] = {}, dst_stride[kMaxDims] = {};
  int64_t left[kMaxDims] = {};

  static Interior of(const std::vector<int64_t>& shape, const std::vector<int64_t>& pad) {
    Interior in;
    if (shape.size() > size_t(kMaxDims)) throw std::invalid_argument("more than 8 dimensions");
    in.nd = int(shape.size());
    int64_t ss = 1, ds = 1;
    for (int k = in.nd - 1; k >= 0; --k) {
      size_t pair = size_t(in.nd - 1 - k);
      int64_t l = 2 * pair < pad.size() ? pad[2 * pair] : 0, r = 2 * pair + 1 < pad.size() ? pad[2 * pair + 1] : 0;
      int64_t n = shape[size_t(k)], lo = l < 0 ? -l : 0, hi = r < 0 ? n + r : n;
      in.count_[k] = hi > lo ? hi - lo : 0;
      in.src_start[k] = lo;
      in.left[k] = l;
      in.src_stride[k] = ss;
      in.dst_stride[k] = ds;
      ss *= n;
      ds *= n + l + r;
    }
    return in;
  }
  WC_HD int64_t count() const {
    int64_t c = 1;
    for (int k = 0; k < nd; ++k) c *= count_[k];
    return c;
  }
  WC_HD void map(int64_t i, int64_t* src, int64_t* dst) const {
    int64_t s = 0, d = 0;
    for (int k = nd - 1; k >= 0; --k) {
      int64_t c = i % count_[k];
      i /= count_[k];
      int64_t j = src_start[k] + c;
      s += j * src_stride[k];
      d += (j + left[k]) * dst_stride[k];
    }
    *src = s;
    *dst = d;
  }
};

}  // namespace wc::pad
