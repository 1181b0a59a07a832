// The rng_graph suite: Philox4x32-10 and the per-capture generator (kernels/rng_graph), CPU
// reference checks plus the same state-machine checks on real CUDA graphs, and device streams
// against the CPU reference and curand's own curand_init/curand.
#include <cstdio>
#include <cstring>
#include <functional>

#include "philox.h"
#include "rng_graph/backend.h"
#include "rng_graph/checks.h"
#include "smoke/suites/suite.h"
#include "util/parse.h"

namespace wc::smoke {
namespace {

using nlohmann::json;
using namespace wc::rng;

struct StreamCase {
  std::string name;
  uint64_t seed = 0, subsequence = 0, offset = 0;
  std::vector<uint32_t> expect;
};

uint64_t as_u64(const json& v, const std::string& ptr) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  if (v.is_string())  // big values as "0x..." or decimal strings
    if (auto x = parse_integer(v.get<std::string>(), UINT64_MAX)) return *x;
  throw std::runtime_error(ptr + ": expected a non-negative integer (or a string such as \"0xffffffffffffffff\")");
}

class RngGraphSuite : public Suite {
 public:
  std::string name() const override { return "rng_graph"; }
  std::string description() const override {
    return "Philox4x32-10 (curand mapping) and CUDA graphs with per-capture RNG state";
  }

  // {"cases": [{"name"?, "seed", "subsequence", "offset", "expect": ["hex words"...]}]} or a bare array.
  void add_cases(const json& doc) override {
    for_each_case(doc, {"name", "note", "seed", "subsequence", "offset", "expect"},
                  [&](const json& c, const std::string& ptr) {
                    StreamCase sc;
                    sc.name = c.contains("name") && c["name"].is_string() ? c["name"].get<std::string>()
                                                                          : "case_" + std::to_string(cases_.size() + 1);
                    if (!c.contains("seed")) throw std::runtime_error(ptr + "/seed: missing");
                    sc.seed = as_u64(c["seed"], ptr + "/seed");
                    sc.subsequence = c.contains("subsequence") ? as_u64(c["subsequence"], ptr + "/subsequence") : 0;
                    sc.offset = c.contains("offset") ? as_u64(c["offset"], ptr + "/offset") : 0;
                    if (!c.contains("expect") || !c["expect"].is_array() || c["expect"].empty())
                      throw std::runtime_error(ptr + "/expect: expected a non-empty array of hex words");
                    for (size_t k = 0; k < c["expect"].size(); ++k) {
                      const json& w = c["expect"][k];
                      auto v = w.is_string() ? parse_hex(w.get<std::string>(), 0xffffffffu) : std::nullopt;
                      if (!v)
                        throw std::runtime_error(ptr + "/expect/" + std::to_string(k) +
                                                 ": expected a 32-bit hex word such as \"6627e8d5\"");
                      sc.expect.push_back(static_cast<uint32_t>(*v));
                    }
                    cases_.push_back(sc);
                  });
  }

  std::vector<CaseOutcome> run(const RunContext& ctx) override {
    std::vector<CaseOutcome> out;
    const std::string s = name();
    if (ctx.probe) return rng_graph_artifact_cases(*ctx.probe, ctx.want_cuda, !cases_.empty());
    if (ctx.want_cpu) {
      for (auto& [n, fn] : std::vector<std::pair<std::string, std::function<std::string()>>>{
               {"philox_known_answers", check_known_answers},
               {"offset_law", check_offset_law},
               {"subsequence_and_carries", check_subsequence_and_carries},
               {"uniform_mapping", check_uniform_mapping},
               {"increment_rounding", check_increment_rounding}})
        out.push_back(run_case(s, n, "cpu", fn));
      auto cpu = make_cpu_backend();
      backend_checks(*cpu, out);
      for (const auto& c : cases_)
        out.push_back(run_case(s, "stream/" + c.name, "cpu", [&] {
          return compare_words(reference_stream(c.seed, c.subsequence, c.offset, c.expect.size()), c.expect,
                               "CPU stream");
        }));
    }
    if (ctx.want_cuda) cuda_cases(out);
    return out;
  }

 private:
  void backend_checks(Backend& be, std::vector<CaseOutcome>& out) {
    const std::string s = name(), b = be.name();
    out.push_back(run_case(s, "replay_equals_eager_at_offset", b, [&] { return check_replay_equals_eager(be); }));
    out.push_back(run_case(s, "consecutive_replays_differ", b, [&] { return check_consecutive_replays_differ(be); }));
    out.push_back(run_case(s, "reseed_gives_identical_replays", b, [&] { return check_reseed_identical_replays(be); }));
    out.push_back(run_case(s, "graph_without_rng_keeps_offset", b, [&] { return check_graph_without_rng(be); }));
    out.push_back(run_case(s, "seed_change_during_capture", b, [&] { return check_seed_change_during_capture(be); }));
    out.push_back(run_case(s, "concurrent_captures_two_threads", b, [&] { return check_concurrent_captures(be); }));
    out.push_back(run_case(s, "capture_state_machine", b, [&] { return check_state_machine(be); }));
    out.push_back(run_case(s, "fill_size_sweep", b, [&] { return check_size_sweep(be); }));
  }

  void cuda_cases(std::vector<CaseOutcome>& out) {
    const std::string s = name();
    std::string why;
    std::unique_ptr<Backend> be;
    try {
      be = make_cuda_backend(&why);
    } catch (const std::exception& e) {  // a device error while starting: an errored case, not exit 2
      std::string msg = std::string("CUDA backend failed to start: ") + e.what();
      out.push_back(run_case(s, "cuda_backend", "cuda", [&]() -> std::string { throw std::runtime_error(msg); }));
      return;
    }
    const std::vector<std::string> names = {"device_stream_matches_cpu",
                                            "device_stream_matches_curand",
                                            "curand_uniform_matches_cpu",
                                            "replay_equals_eager_at_offset",
                                            "consecutive_replays_differ",
                                            "reseed_gives_identical_replays",
                                            "graph_without_rng_keeps_offset",
                                            "seed_change_during_capture",
                                            "concurrent_captures_two_threads",
                                            "capture_state_machine",
                                            "fill_size_sweep"};
    if (!be) {
      for (const auto& n : names) out.push_back(skipped_case(s, n, "cuda", why));
      for (const auto& c : cases_) out.push_back(skipped_case(s, "stream/" + c.name, "cuda", why));
      return;
    }
    struct P {
      uint64_t seed, sub, off;
    };
    const std::vector<P> points = {{0, 0, 0},
                                   {42, 7, 5},
                                   {0x123456789abcdefull, 0xffffffffull, 4 * 0xffffffffull + 2},
                                   {1, 0xffffffffffffffffull, 3}};
    using StreamFn = std::vector<uint32_t> (*)(uint64_t, uint64_t, uint64_t, size_t, std::string*);
    for (auto [idx, fn, what] : {std::tuple<size_t, StreamFn, const char*>{0, device_philox_stream, "device Philox"},
                                 {1, device_curand_stream, "curand"}})
      out.push_back(run_case(s, names[idx], "cuda", [&, fn = fn, what = what] {
        for (const auto& p : points) {
          std::string w;
          auto e = compare_words(fn(p.seed, p.sub, p.off, 257, &w), reference_stream(p.seed, p.sub, p.off, 257),
                                 std::string(what) + " vs CPU at seed " + std::to_string(p.seed));
          if (!e.empty()) return e;
        }
        return std::string();
      }));
    out.push_back(run_case(s, names[2], "cuda", [&] {
      std::string w;
      auto dev = device_curand_uniform(42, 3, 9, 1000, &w);
      auto ref = reference_stream(42, 3, 9, 1000);
      for (size_t i = 0; i < ref.size(); ++i) {
        float want = philox::uniform(ref[i]);
        if (std::memcmp(&want, &dev[i], 4) != 0) {
          char b[128];
          std::snprintf(b, sizeof b, "curand_uniform[%zu] = %.9g, CPU mapping of %08x gives %.9g", i, dev[i], ref[i],
                        want);
          return std::string(b);
        }
      }
      return std::string();
    }));
    backend_checks(*be, out);
    for (const auto& c : cases_)
      out.push_back(run_case(s, "stream/" + c.name, "cuda", [&] {
        std::string w;
        return compare_words(device_philox_stream(c.seed, c.subsequence, c.offset, c.expect.size(), &w), c.expect,
                             "device stream");
      }));
  }

  std::vector<StreamCase> cases_;
};

}  // namespace

std::unique_ptr<Suite> make_rng_graph_suite() { return std::make_unique<RngGraphSuite>(); }

}  // namespace wc::smoke
