#include "pad_concat/pad.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace wc::pad {

const char* dtype_name(DType d) {
  switch (d) {
    case DType::f32: return "float32";
    case DType::f16: return "float16";
    case DType::bf16: return "bfloat16";
    case DType::i32: return "int32";
    case DType::i64: return "int64";
  }
  return "?";
}

std::optional<DType> dtype_from_name(const std::string& s) {
  for (DType d : all_dtypes())
    if (s == dtype_name(d)) return d;
  if (s == "half") return DType::f16;
  if (s == "float") return DType::f32;
  if (s == "long") return DType::i64;
  if (s == "int") return DType::i32;
  return std::nullopt;
}

size_t dtype_size(DType d) {
  switch (d) {
    case DType::f16:
    case DType::bf16: return 2;
    case DType::f32:
    case DType::i32: return 4;
    case DType::i64: return 8;
  }
  return 4;
}

int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0) throw PadError("negative size " + std::to_string(s) + " in a shape");
    if (s && n > std::numeric_limits<int64_t>::max() / s) throw PadError("shape has more elements than int64 holds");
    n *= s;
  }
  return n;
}

int64_t Tensor::numel() const { return numel_of(shape); }

uint64_t Tensor::bits_at(int64_t i) const {
  uint64_t v = 0;
  std::memcpy(&v, data.data() + size_t(i) * dtype_size(dtype), dtype_size(dtype));  // little-endian host
  return v;
}

void Tensor::set_bits(int64_t i, uint64_t bits) {
  std::memcpy(data.data() + size_t(i) * dtype_size(dtype), &bits, dtype_size(dtype));
}

std::vector<int64_t> padded_shape(const std::vector<int64_t>& shape, const std::vector<int64_t>& pad) {
  if (pad.size() % 2) throw PadError("Padding length must be divisible by 2");
  if (pad.size() > 2 * shape.size())
    throw PadError(
        "Padding length should be less than or equal to two times the input dimension but got padding length " +
        std::to_string(pad.size()) + " and input of dimension " + std::to_string(shape.size()));
  std::vector<int64_t> out = shape;
  numel_of(shape);
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    size_t d = shape.size() - 1 - i;
    int64_t l = pad[2 * i], r = pad[2 * i + 1];
    const int64_t lim = int64_t(1) << 62;
    if (l > lim || r > lim || l < -lim || r < -lim)
      throw PadError("padding " + std::to_string(l) + ", " + std::to_string(r) + " is out of range");
    int64_t n = shape[d] + l + r;
    if (n < 0)
      throw PadError("The input size " + std::to_string(shape[d]) + ", plus negative padding " + std::to_string(l) +
                     " and " + std::to_string(r) +
                     " resulted in a negative output size, which is invalid. Check dimension " + std::to_string(d) +
                     " of your input. (narrow(): length must be non-negative)");
    out[d] = n;
  }
  // Then PyTorch crops the input by the negative pads (narrow) before padding: a crop of more than
  // the dim holds fails there even when the positive pad on the other side keeps the output size
  // non-negative ([0] padded by [-1, 2]); found by running the suite through torch 2.15.
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    size_t d = shape.size() - 1 - i;
    if (shape[d] + std::min<int64_t>(pad[2 * i], 0) + std::min<int64_t>(pad[2 * i + 1], 0) < 0)
      throw PadError("narrow(): length must be non-negative.");
  }
  numel_of(out);
  return out;
}

uint16_t float_to_half_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
  if (exp == 0xff) return uint16_t(sign | 0x7c00u | (man ? 0x200u : 0));  // inf, NaN (canonical quiet)
  int e = int(exp) - 127 + 15;
  if (e >= 0x1f) return uint16_t(sign | 0x7c00u);  // overflow -> inf
  if (e <= 0) {                                    // subnormal or zero
    if (e < -10) return uint16_t(sign);
    man |= 0x800000u;
    int shift = 14 - e;
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return uint16_t(sign | h);
  }
  uint32_t h = (uint32_t(e) << 10) | (man >> 13), rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;  // may carry into the exponent: correct, up to inf
  return uint16_t(sign | h);
}

uint16_t float_to_bf16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f)) return 0x7fc0u;  // c10::BFloat16: one quiet NaN, sign dropped
  uint32_t rounding_bias = 0x7fffu + ((x >> 16) & 1u);
  return uint16_t((x + rounding_bias) >> 16);
}

uint64_t fill_bits(DType d, double v) {
  auto overflow = [&](const char* type) {
    return PadError(std::string("value cannot be converted to type ") + type + " without overflow");
  };
  switch (d) {
    case DType::f32:
    case DType::f16:
    case DType::bf16: {
      double max = d == DType::f32   ? double(std::numeric_limits<float>::max())
                   : d == DType::f16 ? 65504.0
                                     : 3.3895313892515355e38;
      const char* type = d == DType::f32 ? "float" : d == DType::f16 ? "at::Half" : "at::BFloat16";
      if (!std::isinf(v) && !std::isnan(v) && (v > max || v < -max)) throw overflow(type);
      float f = static_cast<float>(v);
      uint32_t b;
      if (std::isnan(v)) {
        b = std::signbit(v) ? 0xffc00000u : 0x7fc00000u;
        std::memcpy(&f, &b, 4);
      }
      std::memcpy(&b, &f, 4);
      if (d == DType::f32) return b;
      return d == DType::f16 ? float_to_half_bits(f) : float_to_bf16_bits(f);
    }
    case DType::i32: {
      if (std::isnan(v) || v < -2147483648.0 || v > 2147483647.0) throw overflow("int32_t");
      return uint32_t(int32_t(std::trunc(v)));
    }
    case DType::i64: {
      if (std::isnan(v) || v < -9223372036854775808.0 || v >= 9223372036854775808.0) throw overflow("int64_t");
      return uint64_t(int64_t(std::trunc(v)));
    }
  }
  return 0;
}

namespace {

uint64_t from_integer(DType d, int64_t i) {
  switch (d) {
    case DType::f32: {
      float f = float(i);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    case DType::f16: return float_to_half_bits(float(i));
    case DType::bf16: return float_to_bf16_bits(float(i));
    case DType::i32: return uint32_t(i);
    case DType::i64: return uint64_t(i);
  }
  return 0;
}

float half_bits_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, x;
  if (exp == 0x1f)
    x = sign | 0x7f800000u | (man << 13);
  else if (exp == 0) {
    if (!man)
      x = sign;
    else {  // normalise a subnormal
      int e = -1;
      do {
        ++e;
        man <<= 1;
      } while (!(man & 0x400u));
      x = sign | (uint32_t(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
    }
  } else
    x = sign | ((exp + 127 - 15) << 23) | (man << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

float bits_to_float(DType d, uint64_t b) {
  uint32_t x = d == DType::f32 ? uint32_t(b) : d == DType::bf16 ? uint32_t(b) << 16 : 0;
  if (d == DType::f16) return half_bits_to_float(uint16_t(b));
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace

Tensor arange(const std::vector<int64_t>& shape, DType d) {
  Tensor t;
  t.dtype = d;
  t.shape = shape;
  int64_t n = numel_of(shape);
  t.data.resize(size_t(n) * dtype_size(d));
  for (int64_t i = 0; i < n; ++i) t.set_bits(i, from_integer(d, i));
  return t;
}

Tensor pad_reference(const Tensor& x, const std::vector<int64_t>& pad, uint64_t fill) {
  Tensor out;
  out.dtype = x.dtype;
  out.shape = padded_shape(x.shape, pad);
  const size_t nd = x.shape.size();
  std::vector<int64_t> left(nd, 0);
  for (size_t i = 0; i < pad.size() / 2; ++i) left[nd - 1 - i] = pad[2 * i];
  int64_t n = out.numel();
  out.data.resize(size_t(n) * dtype_size(x.dtype));
  std::vector<int64_t> idx(nd, 0);
  for (int64_t o = 0; o < n; ++o) {
    // input flat index of output multi-index idx, or -1 when it falls in the pad
    int64_t in = 0;
    bool inside = true;
    for (size_t k = 0; k < nd; ++k) {
      int64_t j = idx[k] - left[k];
      if (j < 0 || j >= x.shape[k]) {
        inside = false;
        break;
      }
      in = in * x.shape[k] + j;
    }
    out.set_bits(o, inside ? x.bits_at(in) : fill);
    for (size_t k = nd; k-- > 0;) {  // advance the multi-index, last dim fastest
      if (++idx[k] < out.shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

uint32_t checksum(const Tensor& t) {
  uint32_t s = 0;
  int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    uint64_t b = t.bits_at(i);
    s += uint32_t(b) + uint32_t(b >> 32);
  }
  return s;
}

std::optional<CatRewrite> cat_rewrite_eligible(const std::vector<int64_t>& pad, size_t ndim, int consumers) {
  if (consumers < 2 || pad.size() % 2 || pad.size() > 2 * ndim) return std::nullopt;
  std::optional<CatRewrite> r;
  for (size_t i = 0; i < pad.size(); ++i) {
    if (pad[i] == 0) continue;
    if (pad[i] < 0 || i % 2 == 0 || r) return std::nullopt;  // negative, left, or a second pad
    r = CatRewrite{int(ndim - 1 - i / 2), pad[i]};
  }
  return r;
}

uint64_t produce(DType d, Producer p, uint64_t b) {
  if (p == Producer::copy) return b;
  switch (d) {
    case DType::i32: return uint32_t(uint32_t(b) + uint32_t(b));
    case DType::i64: return b + b;
    case DType::f32: {
      float f = bits_to_float(d, b);
      f = f + f;
      uint32_t x;
      std::memcpy(&x, &f, 4);
      return x;
    }
    case DType::f16: {
      float f = bits_to_float(d, b);
      return float_to_half_bits(f + f);
    }
    case DType::bf16: {
      float f = bits_to_float(d, b);
      return float_to_bf16_bits(f + f);
    }
  }
  return b;
}

Tensor produce(const Tensor& x, Producer p) {
  Tensor y = x;
  int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) y.set_bits(i, produce(x.dtype, p, x.bits_at(i)));
  return y;
}

std::vector<uint64_t> consumer_reference(const Tensor& y, int dim) {
  int64_t outer = 1, inner = 1, len = y.shape.at(size_t(dim));
  for (int k = 0; k < dim; ++k) outer *= y.shape[size_t(k)];
  for (size_t k = size_t(dim) + 1; k < y.shape.size(); ++k) inner *= y.shape[k];
  std::vector<uint64_t> out(size_t(outer * inner), 0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < len; ++j)
      for (int64_t i = 0; i < inner; ++i) out[size_t(o * inner + i)] += y.bits_at((o * len + j) * inner + i);
  return out;
}

}  // namespace wc::pad
