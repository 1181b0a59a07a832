// Constant pad (`F.pad(x, pad, mode="constant", value)`) and Inductor's pad-as-concatenation
// rewrite (docs/DESIGN.md, "Kernel suites"): the CPU reference, PyTorch's argument checks, the
// rewrite's eligibility predicate, and the three implementations a backend runs (plain pad;
// producer writing into its slice of the padded buffer; the same with a second consumer reading
// the unpadded slice through a strided view).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wc::pad {

enum class DType { f32, f16, bf16, i32, i64 };

const char* dtype_name(DType d);
std::optional<DType> dtype_from_name(const std::string& s);
size_t dtype_size(DType d);
inline const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> d = {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i64};
  return d;
}

// A contiguous (row-major) tensor of raw element bits.
struct Tensor {
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  int64_t numel() const;
  uint64_t bits_at(int64_t i) const;  // element i's bits, zero-extended
  void set_bits(int64_t i, uint64_t bits);
};

// PyTorch refused the arguments; the message is PyTorch's reason.
class PadError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The output shape, or PadError: odd pad length, more pairs than dims, a negative output size.
std::vector<int64_t> padded_shape(const std::vector<int64_t>& shape, const std::vector<int64_t>& pad);
// The fill value's bits in `d`, converted as c10's checked_convert does: a value the dtype cannot
// hold (NaN or +-inf for integers, |v| above the dtype's max) is a PadError; fractions truncate
// toward zero for integers; floats round to nearest even through float32 (NaN -> the dtype's
// canonical quiet NaN, -0.0 and infinities kept).
uint64_t fill_bits(DType d, double value);
// The bits of float32 `f` rounded to nearest even in float16 / bfloat16.
uint16_t float_to_half_bits(float f);
uint16_t float_to_bf16_bits(float f);

// arange(numel).reshape(shape) cast to `d` (int64 -> float32 -> half types; int32 wraps).
Tensor arange(const std::vector<int64_t>& shape, DType d);
// The reference: every output element is the input's or the fill.
Tensor pad_reference(const Tensor& x, const std::vector<int64_t>& pad, uint64_t fill);
// Sum modulo 2^32 of the elements read as unsigned integers of their width (int64: both halves).
uint32_t checksum(const Tensor& t);

// Inductor's rewrite applies to a single positive right pad on one dim (no left, no negative
// pads) of an input with several consumers. Returns the dim and the pad amount, or nothing.
struct CatRewrite {
  int dim = 0;
  int64_t amount = 0;
};
std::optional<CatRewrite> cat_rewrite_eligible(const std::vector<int64_t>& pad, size_t ndim, int consumers);

// The producer the rewrite moves into the padded buffer: y = x + x in the element's own type
// (float types through float32 and back, integers wrapping), exact on CPU and GPU alike.
enum class Producer { copy, twice };
uint64_t produce(DType d, Producer p, uint64_t bits);
Tensor produce(const Tensor& x, Producer p);
// The second consumer: for each (outer, inner) position, the wrapping sum of the element bits
// along `dim` over the unpadded slice (order-independent, so exact everywhere).
std::vector<uint64_t> consumer_reference(const Tensor& y, int dim);

// What a backend reports from one implementation run.
struct PadRun {
  Tensor out;
  std::vector<uint64_t> consumer;                 // implementation 3: the second consumer's results
  uint64_t producer_launches = 0;                 // producer launches the host issued
  uint64_t producer_ran = 0;                      // times the producer's body ran (counted by the kernel itself)
  const void* buffer_base = nullptr;              // the padded buffer (device or host address)
  const void* view_base = nullptr;                // the consumer's strided view of the unpadded slice
  std::vector<int64_t> view_sizes, view_strides;  // in elements
};

class PadBackend {
 public:
  virtual ~PadBackend() = default;
  virtual std::string name() const = 0;
  // 1. what eager does: the producer into its own buffer, then fill the output and copy the interior.
  virtual PadRun plain(const Tensor& x, Producer p, const std::vector<int64_t>& pad, uint64_t fill) = 0;
  // 2. the rewrite: fill only the pad region; the producer writes straight into its slice.
  virtual PadRun concat(const Tensor& x, Producer p, CatRewrite r, uint64_t fill) = 0;
  // 3. as 2, plus a consumer reading the unpadded slice through a strided view of the same buffer.
  virtual PadRun multi_consumer(const Tensor& x, Producer p, CatRewrite r, uint64_t fill) = 0;
};

std::unique_ptr<PadBackend> make_cpu_backend();
// nullptr and the reason when this build has no CUDA or there is no usable GPU.
std::unique_ptr<PadBackend> make_cuda_backend(std::string* why);

// Benchmarks on the device (empty + reason without one).
struct PadBench {
  int64_t bytes = 0;  // padded output size
  double ms_plain = 0, ms_concat = 0, ms_multi_plain = 0, ms_multi_concat = 0;
  double moved_plain = 0, moved_concat = 0;  // bytes each implementation reads + writes
};
struct DeviceBandwidth {
  double peak_bytes_per_s = 0;
  std::string device;
};
std::vector<PadBench> device_pad_bench(const std::vector<int64_t>& sizes, DeviceBandwidth* bw, std::string* why);

}  // namespace wc::pad
