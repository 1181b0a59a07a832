// The three implementations on the host, structured as the CUDA ones are (separate "launches" of
// producer, fill and copy loops over one buffer), so the suite's checks run on both backends.
#include <cstring>

#include "pad_concat/layout.h"
#include "pad_concat/pad.h"

namespace wc::pad {
namespace {

class CpuPad : public PadBackend {
 public:
  std::string name() const override { return "cpu"; }

  PadRun plain(const Tensor& x, Producer p, const std::vector<int64_t>& pad, uint64_t fill) override {
    PadRun r;
    Tensor y = x;
    launch_producer(x, p, y.data.data(), Slice::whole(x.shape), r);
    r.out.dtype = x.dtype;
    r.out.shape = padded_shape(x.shape, pad);
    const int64_t n = r.out.numel();
    r.out.data.resize(size_t(n) * dtype_size(x.dtype));
    for (int64_t i = 0; i < n; ++i) r.out.set_bits(i, fill);  // fill everything
    Interior in = Interior::of(x.shape, pad);
    for (int64_t i = 0; i < in.count(); ++i) {  // then copy the (possibly cropped) interior
      int64_t src, dst;
      in.map(i, &src, &dst);
      r.out.set_bits(dst, y.bits_at(src));
    }
    r.buffer_base = r.view_base = r.out.data.data();
    return r;
  }

  PadRun concat(const Tensor& x, Producer p, CatRewrite rw, uint64_t fill) override {
    PadRun r;
    Slice s = Slice::of(x.shape, rw);
    r.out.dtype = x.dtype;
    r.out.shape = s.padded_shape();
    r.out.data.resize(size_t(r.out.numel()) * dtype_size(x.dtype));
    for (int64_t i = 0; i < s.pad_count(); ++i) r.out.set_bits(s.pad_index(i), fill);  // only the pad region
    launch_producer(x, p, r.out.data.data(), s, r);
    r.buffer_base = r.out.data.data();
    return r;
  }

  PadRun multi_consumer(const Tensor& x, Producer p, CatRewrite rw, uint64_t fill) override {
    PadRun r = concat(x, p, rw, fill);
    Slice s = Slice::of(x.shape, rw);
    View v = s.view();
    r.view_base = r.out.data.data() + size_t(v.offset) * dtype_size(x.dtype);
    r.view_sizes = v.sizes;
    r.view_strides = v.strides;
    // The second consumer reads the unpadded slice through the view, never a copy.
    r.consumer.assign(size_t(s.outer * s.inner), 0);
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t j = 0; j < s.len; ++j)
        for (int64_t i = 0; i < s.inner; ++i)
          r.consumer[size_t(o * s.inner + i)] += r.out.bits_at(v.offset + o * v.strides[0] + j * v.strides[1] + i);
    return r;
  }

 private:
  // One "launch": the producer's body runs once over every element, writing through `s`.
  static void launch_producer(const Tensor& x, Producer p, uint8_t* dst, const Slice& s, PadRun& r) {
    ++r.producer_launches;
    ++r.producer_ran;
    const size_t w = dtype_size(x.dtype);
    for (int64_t i = 0, n = x.numel(); i < n; ++i) {
      uint64_t b = produce(x.dtype, p, x.bits_at(i));
      std::memcpy(dst + size_t(s.dest(i)) * w, &b, w);
    }
  }
};

}  // namespace

std::unique_ptr<PadBackend> make_cpu_backend() { return std::make_unique<CpuPad>(); }

}  // namespace wc::pad
