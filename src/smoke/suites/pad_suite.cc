// The pad_concat suite: constant pad and Inductor's pad-as-concatenation rewrite (kernels/pad_concat).
// A sweep of awkward shapes x every dtype x pad kinds runs the three implementations on each backend
// and compares them bit for bit with the CPU reference; refusals are checked against PyTorch's
// reasons; cases from --cases files state shapes, checksums and fill bits that must hold.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "pad_concat/pad.h"
#include "smoke/artifact/artifact.h"
#include "smoke/suites/suite.h"
#include "util/digest.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc::smoke {
namespace {

using nlohmann::json;
using namespace wc::pad;

std::string shape_str(const std::vector<int64_t>& s) {
  std::string o = "[";
  for (size_t i = 0; i < s.size(); ++i) o += (i ? "," : "") + std::to_string(s[i]);
  return o + "]";
}

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// The first element where two tensors differ, or "".
std::string compare(const Tensor& got, const Tensor& want, const std::string& what) {
  if (got.shape != want.shape) return what + ": shape " + shape_str(got.shape) + ", expected " + shape_str(want.shape);
  if (got.data == want.data) return "";
  for (int64_t i = 0, n = want.numel(); i < n; ++i)
    if (got.bits_at(i) != want.bits_at(i))
      return what + ": element " + std::to_string(i) + " is " + hex(got.bits_at(i)) + ", the reference has " +
             hex(want.bits_at(i));
  return what + ": bytes differ";
}

// Which output elements are pad (not copied from the input).
std::vector<bool> pad_mask(const std::vector<int64_t>& shape, const std::vector<int64_t>& pad) {
  Tensor idx = arange(shape, DType::i64);
  Tensor marked = pad_reference(idx, pad, ~uint64_t(0));
  std::vector<bool> m(size_t(marked.numel()));
  for (int64_t i = 0; i < marked.numel(); ++i) m[size_t(i)] = marked.bits_at(i) == ~uint64_t(0);
  return m;
}

// Runs the applicable implementations on `be` and compares each with `want`; "" when all agree.
std::string run_impls(PadBackend& be, const Tensor& x, Producer p, const std::vector<int64_t>& pad, uint64_t fill,
                      const Tensor& want) {
  const std::string where =
      " (" + std::string(dtype_name(x.dtype)) + " " + shape_str(x.shape) + " pad " + shape_str(pad) + ")";
  // Every implementation: the reference's bits, and the producer launched and run exactly once.
  auto judge = [&](const std::string& what, const PadRun& r) {
    if (auto e = compare(r.out, want, what + where); !e.empty()) return e;
    if (r.producer_launches != 1 || r.producer_ran != 1)
      return what + where + ": producer launched " + std::to_string(r.producer_launches) + " times, ran " +
             std::to_string(r.producer_ran) + " times (expected once)";
    return std::string();
  };
  if (auto e = judge("plain pad", be.plain(x, p, pad, fill)); !e.empty()) return e;
  if (auto rw = cat_rewrite_eligible(pad, x.shape.size(), 2)) {
    if (auto e = judge("pad as concatenation", be.concat(x, p, *rw, fill)); !e.empty()) return e;
    PadRun r3 = be.multi_consumer(x, p, *rw, fill);
    if (auto e = judge("multi-consumer", r3); !e.empty()) return e;
    // The consumer's view aliases the padded buffer: same base, row stride = the padded width.
    int64_t inner = 1;
    for (size_t k = size_t(rw->dim) + 1; k < x.shape.size(); ++k) inner *= x.shape[k];
    int64_t padded_row = (x.shape[size_t(rw->dim)] + rw->amount) * inner;
    if (r3.view_base != r3.buffer_base)
      return "multi-consumer" + where + ": the consumer's view does not start at the padded buffer";
    if (r3.view_strides.size() != 3 || r3.view_strides[0] != padded_row || r3.view_strides[1] != inner ||
        r3.view_strides[2] != 1)
      return "multi-consumer" + where + ": view strides " + shape_str(r3.view_strides) + ", expected [" +
             std::to_string(padded_row) + "," + std::to_string(inner) + ",1]";
    // The consumer read the producer's output through the view.
    Tensor y = produce(x, p);
    if (r3.consumer != consumer_reference(y, rw->dim))
      return "multi-consumer" + where + ": the second consumer's results differ from the reference reduction";
  }
  return "";
}

struct PadKind {
  std::string name;
  std::function<std::vector<int64_t>(const std::vector<int64_t>&)> pad;  // from the shape
  bool eligible;
};

const std::vector<PadKind>& pad_kinds() {
  static const std::vector<PadKind> k = {
      {"right_pad_last_dim",
       [](const auto&) {
         return std::vector<int64_t>{0, 3};
       },
       true},
      {"right_pad_first_dim",
       [](const auto& s) {
         std::vector<int64_t> p(2 * s.size(), 0);
         p.back() = 2;
         return p;
       },
       true},
      {"left_and_right",
       [](const auto&) {
         return std::vector<int64_t>{2, 5};
       },
       false},
      {"negative_crop",
       [](const auto&) {
         return std::vector<int64_t>{-1, 2};
       },
       false},
      {"crop_to_zero",
       [](const auto& s) {
         return std::vector<int64_t>{-s.back(), 0};
       },
       false},
      {"two_dims",
       [](const auto& s) {
         return s.size() >= 2 ? std::vector<int64_t>{1, 1, 0, 2} : std::vector<int64_t>{1, 1};
       },
       false},
  };
  return k;
}

const std::vector<std::vector<int64_t>>& sweep_shapes() {
  static const std::vector<std::vector<int64_t>> s = {
      {0},     {1},       {7},         {65},      {129},        {3, 0},          {2, 7},
      {4, 65}, {129, 33}, {1000, 301}, {2, 3, 5}, {2, 3, 4, 5}, {2, 1, 3, 2, 5}, {3, 257, 9}};
  return s;
}

// Fill values that exercise the conversion: the special floats in bits, fractions on integers.
double sweep_fill(DType d, size_t i) {
  static const double floats[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1.5};
  static const double ints[] = {0.0, 2.5, -2.7, 7.0};
  bool is_int = d == DType::i32 || d == DType::i64;
  return is_int ? ints[i % 4] : floats[i % 6];
}

constexpr int64_t kMaxElements = int64_t(1) << 24;

struct FileCase {
  std::string name;
  std::vector<int64_t> shape, pad;
  DType dtype = DType::f32;
  double value = 0;
  bool expect_error = false;
  std::optional<std::vector<int64_t>> expect_shape;
  std::optional<uint32_t> checksum;
  std::optional<uint64_t> fill_bits;
};

std::vector<int64_t> int_list(const json& v, const std::string& ptr, bool allow_negative) {
  if (!v.is_array()) throw std::runtime_error(ptr + ": expected an array of integers");
  std::vector<int64_t> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_integer() || (!allow_negative && v[i].get<int64_t>() < 0) ||
        v[i].get<int64_t>() > (int64_t(1) << 40) || v[i].get<int64_t>() < -(int64_t(1) << 40))
      throw std::runtime_error(ptr + "/" + std::to_string(i) + ": expected " +
                               (allow_negative ? "an integer" : "a non-negative integer") + " below 2^40");
    out.push_back(v[i].get<int64_t>());
  }
  return out;
}

double fill_value(const json& v, const std::string& ptr) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s == "nan" || s == "NaN") return NAN;
    if (s == "-nan") return -NAN;
    if (s == "inf" || s == "+inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    if (s == "-0.0" || s == "-0") return -0.0;
    if (auto d = parse_float(s)) return *d;
  }
  throw std::runtime_error(ptr + ": expected a number or one of \"nan\", \"-0.0\", \"inf\", \"-inf\"");
}

class PadConcatSuite : public Suite {
 public:
  std::string name() const override { return "pad_concat"; }
  std::string description() const override {
    return "constant pad (F.pad) and Inductor's pad-as-concatenation rewrite: plain, producer-into-slice, "
           "multi-consumer";
  }

  void add_cases(const json& doc) override {
    for_each_case(
        doc,
        {"name", "note", "shape", "dtype", "pad", "value", "expect_shape", "expect", "checksum", "expect_fill_bits"},
        [&](const json& c, const std::string& ptr) {
          FileCase fc;
          fc.name = c.contains("name") && c["name"].is_string() ? c["name"].get<std::string>()
                                                                : "case_" + std::to_string(cases_.size() + 1);
          if (!c.contains("shape")) throw std::runtime_error(ptr + "/shape: missing");
          fc.shape = int_list(c["shape"], ptr + "/shape", false);
          if (fc.shape.size() > 8) throw std::runtime_error(ptr + "/shape: more than 8 dimensions");
          if (!c.contains("pad")) throw std::runtime_error(ptr + "/pad: missing");
          fc.pad = int_list(c["pad"], ptr + "/pad", true);
          // A smoke case stays small: both the input and a valid pad's output within 2^24 elements.
          auto too_big = [](const std::vector<int64_t>& shape) {
            int64_t n = 1;
            for (int64_t v : shape) {
              if (v && n > kMaxElements / v) return true;
              n *= v;
            }
            return false;
          };
          if (too_big(fc.shape)) throw std::runtime_error(ptr + "/shape: more than 2^24 elements");
          try {
            if (too_big(padded_shape(fc.shape, fc.pad)))
              throw std::runtime_error(ptr + "/pad: the output would have more than 2^24 elements");
          } catch (const PadError&) {
            // refused as PyTorch refuses it: the case's outcome, judged when it runs
          }
          if (!c.contains("dtype") || !c["dtype"].is_string() || !dtype_from_name(c["dtype"].get<std::string>()))
            throw std::runtime_error(ptr + "/dtype: expected one of float32, float16, bfloat16, int32, int64");
          fc.dtype = *dtype_from_name(c["dtype"].get<std::string>());
          if (c.contains("value")) fc.value = fill_value(c["value"], ptr + "/value");
          if (c.contains("expect")) {
            if (c["expect"] != "error")
              throw std::runtime_error(ptr + "/expect: the only value is \"error\" (a pad that must be refused)");
            fc.expect_error = true;
          }
          if (c.contains("expect_shape")) fc.expect_shape = int_list(c["expect_shape"], ptr + "/expect_shape", false);
          if (c.contains("checksum")) {
            const json& v = c["checksum"];
            std::optional<uint64_t> x;
            if (v.is_number_unsigned()) x = v.get<uint64_t>();
            if (v.is_string()) x = parse_hex(v.get<std::string>(), 0xffffffffu);
            if (!x || *x > 0xffffffffu)
              throw std::runtime_error(ptr + "/checksum: expected an integer below 2^32 (or \"0x...\")");
            fc.checksum = uint32_t(*x);
          }
          if (c.contains("expect_fill_bits")) {
            const json& v = c["expect_fill_bits"];
            uint64_t max = dtype_size(fc.dtype) == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * dtype_size(fc.dtype))) - 1;
            auto x = v.is_string() ? parse_hex(v.get<std::string>(), max) : std::nullopt;
            if (!x)
              throw std::runtime_error(ptr + "/expect_fill_bits: expected a hex bit pattern that fits " +
                                       std::to_string(8 * dtype_size(fc.dtype)) + " bits, such as \"0x7fc00000\"");
            fc.fill_bits = *x;
          }
          if (fc.expect_error && (fc.expect_shape || fc.checksum || fc.fill_bits))
            throw std::runtime_error(ptr + ": a case expecting an error states no shape, checksum or fill bits");
          cases_.push_back(fc);
        });
  }

  std::vector<CaseOutcome> run(const RunContext& ctx) override {
    std::vector<CaseOutcome> out;
    const std::string s = name();
    if (ctx.probe) {
      // The artifact's torch on the CPU, and on its GPU where it has one.
      if (ctx.want_cpu) artifact_cases(*ctx.probe, ctx.compiled, "cpu", out);
      if (std::string why = artifact_cuda_unavailable(*ctx.probe, ctx.want_cuda); why.empty())
        artifact_cases(*ctx.probe, ctx.compiled, "cuda", out);
      else if (ctx.want_cuda)
        for (const char* n : {"sweep", "compiled"}) out.push_back(skipped_case(s, n, "artifact-cuda", why));
      return out;
    }
    if (ctx.want_cpu) {
      out.push_back(run_case(s, "eligibility_predicate", "cpu", check_eligibility));
      out.push_back(run_case(s, "refusals_with_pytorch_reasons", "cpu", check_refusals));
      out.push_back(run_case(s, "fill_value_bits", "cpu", check_fill_bits));
      auto cpu = make_cpu_backend();
      backend_cases(*cpu, out);
    }
    if (ctx.want_cuda) {
      std::string why;
      std::unique_ptr<PadBackend> be;
      try {
        be = make_cuda_backend(&why);
      } catch (const std::exception& e) {
        why = std::string("CUDA backend failed to start: ") + e.what();
        out.push_back(run_case(s, "cuda_backend", "cuda", [&]() -> std::string { throw std::runtime_error(why); }));
        return out;
      }
      if (!be) {
        for (DType d : all_dtypes()) out.push_back(skipped_case(s, std::string("sweep/") + dtype_name(d), "cuda", why));
        for (const auto& c : cases_) out.push_back(skipped_case(s, "case/" + c.name, "cuda", why));
        return out;
      }
      backend_cases(*be, out);
    }
    return out;
  }

 private:
  // --- artifact mode: the artifact's torch.nn.functional.pad (eager, and compiled by Inductor) ---

  static nlohmann::json fill_json(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
  }

  static nlohmann::json pad_request(const Tensor& x, Producer p, const std::vector<int64_t>& pad, double value,
                                    bool compiled, const std::string& device) {
    std::string bytes(x.data.begin(), x.data.end());
    return {{"op", "pad"},
            {"dtype", dtype_name(x.dtype)},
            {"shape", x.shape},
            {"data", base64_encode(bytes)},
            {"producer", p == Producer::twice ? "twice" : "copy"},
            {"pad", pad},
            {"fill", fill_json(value)},
            {"compile", compiled},
            {"device", device}};
  }

  // The tensor an answer carries, in `d` (its dtype must be d's, contiguous).
  static std::optional<Tensor> answer_tensor(const nlohmann::json& t, DType d, std::string* why) {
    auto a = smoke::answer_tensor(t, dtype_name(d), dtype_size(d), why);
    if (!a) return std::nullopt;
    Tensor out;
    out.dtype = d;
    out.shape = std::move(a->shape);
    out.data.assign(a->bytes.begin(), a->bytes.end());
    return out;
  }

  // One pad through the artifact, judged against `want` (and, compiled, the producer's output);
  // the artifact's output into *out when asked.
  static std::string artifact_pad(Probe& probe, const Tensor& x, Producer p, const std::vector<int64_t>& pad,
                                  double value, const Tensor& want, bool compiled, const std::string& device,
                                  Tensor* out = nullptr) {
    const std::string where = " (" + std::string(dtype_name(x.dtype)) + " " + shape_str(x.shape) + " pad " +
                              shape_str(pad) + (compiled ? ", torch.compile" : ", eager") + " on " + device + ")";
    nlohmann::json a = probe.ask(pad_request(x, p, pad, value, compiled, device));
    if (!a.value("ok", false))
      return "torch raised " + a.value("error_type", std::string("?")) + ": " + a.value("message", std::string()) +
             " where the reference pads" + where;
    std::string why;
    auto got = answer_tensor(a["out"], x.dtype, &why);
    if (!got) return "the padded output: " + why + where;
    if (auto e = compare(*got, want, "F.pad's output" + where); !e.empty()) return e;
    if (out) *out = *got;
    if (compiled) {
      auto y = answer_tensor(a.value("producer", nlohmann::json()), x.dtype, &why);
      if (!y) return "the producer's output: " + why + where;
      if (auto e = compare(*y, produce(x, p), "the second consumer's input" + where); !e.empty()) return e;
    }
    return "";
  }

  // The suite through the artifact's torch on `device` (cpu: backend "artifact"; cuda: "artifact-cuda").
  void artifact_cases(Probe& probe, bool compiled, const std::string& device, std::vector<CaseOutcome>& out) {
    const std::string s = name(), backend = device == "cpu" ? "artifact" : "artifact-" + device;
    for (DType d : all_dtypes())
      out.push_back(run_case(s, std::string("sweep/") + dtype_name(d), backend, [&, d]() -> std::string {
        size_t i = 0, runs = 0;
        for (const auto& shape : sweep_shapes())
          for (const auto& kind : pad_kinds()) {
            std::vector<int64_t> pad = kind.pad(shape);
            double value = sweep_fill(d, i++);
            Tensor x = arange(shape, d), want;
            try {
              want = pad_reference(produce(x, Producer::twice), pad, fill_bits(d, value));
            } catch (const PadError& e) {
              // The reference refuses as PyTorch does: the artifact must refuse too.
              nlohmann::json a = probe.ask(pad_request(x, Producer::twice, pad, value, false, device));
              if (a.value("ok", false))
                return kind.name + ": the artifact pads " + shape_str(shape) + " by " + shape_str(pad) +
                       ", which PyTorch refuses (" + e.what() + ")";
              ++runs;
              continue;
            }
            if (auto e = artifact_pad(probe, x, Producer::twice, pad, value, want, false, device); !e.empty())
              return kind.name + ": " + e;
            ++runs;
          }
        return runs ? std::string() : std::string("no sweep case ran");
      }));
    // Inductor's pad-as-concatenation patterns: a producer feeding the pad and a second consumer.
    for (DType d : all_dtypes()) {
      std::string n = std::string("compiled/") + dtype_name(d);
      if (!compiled) {
        out.push_back(skipped_case(s, n, backend, "--no-compile"));
        continue;
      }
      out.push_back(run_case(s, n, backend, [&, d]() -> std::string {
        for (const auto& [shape, pad] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
                 {{7, 33}, {0, 3}}, {{5, 4, 6}, {0, 0, 0, 2}}}) {
          double value = sweep_fill(d, 3);
          Tensor x = arange(shape, d);
          Tensor want = pad_reference(produce(x, Producer::twice), pad, fill_bits(d, value));
          if (auto e = artifact_pad(probe, x, Producer::twice, pad, value, want, true, device); !e.empty()) return e;
        }
        return "";
      }));
    }
    for (const auto& c : cases_)
      out.push_back(run_case(s, "case/" + c.name, backend, [&]() -> std::string {
        uint64_t fill = 0;
        try {
          padded_shape(c.shape, c.pad);
          fill = fill_bits(c.dtype, c.value);
        } catch (const PadError& e) {
          if (!c.expect_error) return std::string("refused: ") + e.what();
          nlohmann::json a =
              probe.ask(pad_request(arange(c.shape, c.dtype), Producer::copy, c.pad, c.value, false, device));
          return a.value("ok", true) ? "the artifact pads what PyTorch refuses (" + std::string(e.what()) + ")"
                                     : std::string();
        }
        Tensor x = arange(c.shape, c.dtype), got;
        if (c.expect_error) {  // the reference pads: the case's word against what the artifact does
          nlohmann::json a = probe.ask(pad_request(x, Producer::copy, c.pad, c.value, false, device));
          return a.value("ok", false)
                     ? "the case expects PyTorch to refuse this pad, but the artifact pads it, as the reference "
                       "does: output shape " +
                           shape_str(padded_shape(c.shape, c.pad))
                     : "the reference pads (output shape " + shape_str(padded_shape(c.shape, c.pad)) +
                           "), the artifact raised " + a.value("error_type", std::string("?")) + ": " +
                           a.value("message", std::string()) + " (as the case expects)";
        }
        if (auto e = artifact_pad(probe, x, Producer::copy, c.pad, c.value, pad_reference(x, c.pad, fill), false,
                                  device, &got);
            !e.empty())
          return e;
        return expectations(c, got, "the artifact's and the reference's");
      }));
  }

  void backend_cases(PadBackend& be, std::vector<CaseOutcome>& out) {
    const std::string s = name();
    for (DType d : all_dtypes())
      out.push_back(run_case(s, std::string("sweep/") + dtype_name(d), be.name(), [&, d]() -> std::string {
        size_t i = 0, runs = 0;
        for (const auto& shape : sweep_shapes())
          for (const auto& kind : pad_kinds()) {
            std::vector<int64_t> pad = kind.pad(shape);
            uint64_t fill = fill_bits(d, sweep_fill(d, i++));
            Tensor x = arange(shape, d);
            Tensor want;
            try {
              want = pad_reference(produce(x, Producer::twice), pad, fill);
            } catch (const PadError&) {
              continue;  // e.g. a crop past the start of a size-0 dim: refused, as PyTorch refuses it
            }
            if (cat_rewrite_eligible(pad, shape.size(), 2).has_value() != kind.eligible)
              return kind.name + " " + shape_str(shape) + ": the rewrite predicate says " +
                     (kind.eligible ? "not eligible" : "eligible") + " for pad " + shape_str(pad);
            if (auto e = run_impls(be, x, Producer::twice, pad, fill, want); !e.empty()) return kind.name + ": " + e;
            ++runs;
          }
        return runs ? std::string() : std::string("no sweep case ran");
      }));
    for (const auto& c : cases_)
      out.push_back(run_case(s, "case/" + c.name, be.name(), [&]() { return run_file_case(be, c); }));
  }

  static std::string run_file_case(PadBackend& be, const FileCase& c) {
    std::vector<int64_t> shape;
    uint64_t fill = 0;
    try {
      shape = padded_shape(c.shape, c.pad);
      fill = fill_bits(c.dtype, c.value);
    } catch (const PadError& e) {
      return c.expect_error ? std::string() : std::string("refused: ") + e.what();
    }
    if (c.expect_error) return "expected PyTorch to refuse this pad, but it is valid: output shape " + shape_str(shape);
    Tensor x = arange(c.shape, c.dtype);
    Tensor want = pad_reference(x, c.pad, fill);
    if (auto e = run_impls(be, x, Producer::copy, c.pad, fill, want); !e.empty()) return e;
    // The expectations, checked on the backend's own output.
    return expectations(c, be.plain(x, Producer::copy, c.pad, fill).out, "");
  }

  // A file case's stated shape, checksum and fill bits against an output; `whose` says whose it is
  // ("" for a backend's; through the artifact, the artifact's output that equals the reference's).
  static std::string expectations(const FileCase& c, const Tensor& got, const std::string& whose) {
    const std::string of = whose.empty() ? "" : " (" + whose + ")";
    if (c.expect_shape && got.shape != *c.expect_shape)
      return "output shape " + shape_str(got.shape) + of + ", the case expects " + shape_str(*c.expect_shape);
    if (c.checksum && checksum(got) != *c.checksum)
      return "checksum " + std::to_string(checksum(got)) + of + ", the case expects " + std::to_string(*c.checksum);
    if (c.fill_bits) {
      auto mask = pad_mask(c.shape, c.pad);
      for (size_t i = 0; i < mask.size(); ++i)
        if (mask[i] && got.bits_at(int64_t(i)) != *c.fill_bits)
          return "pad element " + std::to_string(i) + " holds " + hex(got.bits_at(int64_t(i))) + of +
                 ", the case expects " + hex(*c.fill_bits);
    }
    return "";
  }

  static std::string check_eligibility() {
    struct E {
      std::vector<int64_t> pad;
      size_t ndim;
      int consumers;
      std::optional<std::pair<int, int64_t>> want;
    };
    const std::vector<E> cases = {{{0, 3}, 2, 2, std::make_pair(1, int64_t(3))},
                                  {{0, 0, 0, 2}, 2, 2, std::make_pair(0, int64_t(2))},
                                  {{0, 3}, 2, 1, std::nullopt},
                                  {{1, 3}, 2, 2, std::nullopt},
                                  {{0, -1}, 2, 2, std::nullopt},
                                  {{0, 3, 0, 1}, 2, 2, std::nullopt},
                                  {{2, 0}, 1, 3, std::nullopt},
                                  {{0, 0}, 1, 2, std::nullopt},
                                  {{0, 1, 0, 0, 0, 0}, 3, 2, std::make_pair(2, int64_t(1))},
                                  {{0, 1, 0}, 2, 2, std::nullopt},
                                  {{0, 1, 0, 0, 0, 0}, 2, 2, std::nullopt}};
    for (const auto& e : cases) {
      auto got = cat_rewrite_eligible(e.pad, e.ndim, e.consumers);
      bool ok = got.has_value() == e.want.has_value() &&
                (!got || (got->dim == e.want->first && got->amount == e.want->second));
      if (!ok)
        return "pad " + shape_str(e.pad) + " on " + std::to_string(e.ndim) + "-d with " + std::to_string(e.consumers) +
               " consumers: " + (got ? "eligible on dim " + std::to_string(got->dim) : std::string("not eligible")) +
               ", expected " + (e.want ? "dim " + std::to_string(e.want->first) : std::string("not eligible"));
    }
    return "";
  }

  static std::string check_refusals() {
    struct R {
      std::vector<int64_t> shape, pad;
      DType d;
      double value;
      std::string reason;
    };
    const std::vector<R> cases = {
        {{4}, {1}, DType::f32, 0, "Padding length must be divisible by 2"},
        {{4},
         {1, 1, 1, 1},
         DType::f32,
         0,
         "Padding length should be less than or equal to two times the input dimension"},
        {{}, {1, 1}, DType::f32, 0, "input of dimension 0"},
        {{4}, {-3, -2}, DType::f32, 0, "negative output size"},
        {{4}, {0, 1}, DType::i32, NAN, "int32_t without overflow"},
        {{4}, {0, 1}, DType::i64, INFINITY, "int64_t without overflow"},
        {{4}, {0, 1}, DType::i32, 3e9, "int32_t without overflow"},
        {{4}, {0, 1}, DType::f16, 70000, "at::Half without overflow"},
        {{4}, {0, 1}, DType::f32, 1e39, "float without overflow"},
        {{4}, {0, 1}, DType::bf16, 1e39, "at::BFloat16 without overflow"},
    };
    for (const auto& c : cases) {
      try {
        padded_shape(c.shape, c.pad);
        fill_bits(c.d, c.value);
      } catch (const PadError& e) {
        if (std::string(e.what()).find(c.reason) == std::string::npos)
          return "pad " + shape_str(c.pad) + " on " + shape_str(c.shape) + " refused with \"" + e.what() +
                 "\", expected \"" + c.reason + "\"";
        continue;
      }
      return "pad " + shape_str(c.pad) + " on " + shape_str(c.shape) + " value " + std::to_string(c.value) + " (" +
             dtype_name(c.d) + ") was accepted; PyTorch refuses it: " + c.reason;
    }
    // Legal edge cases: size-0 outputs, crop then pad, an empty pad on a 0-d tensor.
    if (padded_shape({4}, {-4, 0}) != std::vector<int64_t>{0}) return "crop to size 0 is legal";
    if (padded_shape({4}, {-4, 2}) != std::vector<int64_t>{2}) return "[-4,2] on [4] gives [2]";
    if (!padded_shape({}, {}).empty()) return "pad=[] on a 0-d tensor returns it";
    return "";
  }

  static std::string check_fill_bits() {
    struct F {
      DType d;
      double v;
      uint64_t bits;
    };
    const std::vector<F> cases = {{DType::f32, NAN, 0x7fc00000},
                                  {DType::f32, -0.0, 0x80000000},
                                  {DType::f32, INFINITY, 0x7f800000},
                                  {DType::f16, NAN, 0x7e00},
                                  {DType::f16, -0.0, 0x8000},
                                  {DType::f16, 65504, 0x7bff},
                                  {DType::f16, 1e-8, 0x0000},
                                  {DType::f16, 6e-8, 0x0001},
                                  {DType::f16, -INFINITY, 0xfc00},
                                  {DType::bf16, NAN, 0x7fc0},
                                  {DType::bf16, -0.0, 0x8000},
                                  {DType::bf16, 1.00390625, 0x3f80},
                                  {DType::bf16, 1.01171875, 0x3f82},
                                  {DType::i32, 2.5, 2},
                                  {DType::i32, -2.7, 0xfffffffe},
                                  {DType::i64, -1, ~uint64_t(0)},
                                  {DType::i64, 2.9, 2}};
    for (const auto& c : cases) {
      uint64_t got = fill_bits(c.d, c.v);
      if (got != c.bits)
        return std::string(dtype_name(c.d)) + " fill " + std::to_string(c.v) + " gives bits " + hex(got) +
               ", expected " + hex(c.bits);
    }
    return "";
  }

  std::vector<FileCase> cases_;
};

}  // namespace

std::unique_ptr<Suite> make_pad_concat_suite() { return std::make_unique<PadConcatSuite>(); }

}  // namespace wc::smoke
