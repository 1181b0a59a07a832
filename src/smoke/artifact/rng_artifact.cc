// rng_graph through the artifact (issue 17): CUDA graphs that the artifact's PyTorch captures with
// per-capture generators, judged here. Replays against the same work run eagerly from the state each
// replay started at, against each other, and word for word against the Philox reference laid out as
// PyTorch's fills lay it out (rng_graph/torch_fill.h); two graphs on two streams, each with its own
// generator, against each other; a graph that switches graph-safe states, and a cloned state set back.
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>

#include "rng_graph/torch_fill.h"
#include "smoke/artifact/artifact.h"
#include "smoke/suites/suite.h"

namespace wc::smoke {
namespace {

using nlohmann::json;

constexpr const char* kSuite = "rng_graph";
constexpr const char* kBackend = "artifact-cuda";
constexpr uint64_t kSeed = 0x0123456789abcdefull;  // both key words in play

// The artifact's device, as its fills see it.
struct Device {
  uint32_t sm_count = 0, max_threads_per_sm = 0;
  bool known() const { return sm_count > 0 && max_threads_per_sm >= 256; }
  // Without the device's figures only fills of one block (256 elements) have a known layout.
  uint64_t threads(uint64_t numel) const {
    return known() ? rng::torch_fill_threads(numel, sm_count, max_threads_per_sm) : 256;
  }
  uint64_t most_threads() const { return uint64_t(sm_count) * (max_threads_per_sm / 256) * 256; }
};

uint64_t as_u64(const json& v, const std::string& what) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return uint64_t(v.get<int64_t>());
  throw std::runtime_error("the probe's answer: " + what + " is not a non-negative integer");
}

// The raw bytes of a 1-D tensor in an answer (`numel` elements of `dtype`).
std::string tensor_bytes(const json& t, const char* dtype, uint64_t numel, size_t elem, const std::string& what) {
  std::string why;
  auto a = answer_tensor(t, dtype, elem, &why);
  if (!a) throw std::runtime_error("the probe's answer: " + what + ": " + why);
  if (a->bytes.size() != numel * elem)
    throw std::runtime_error("the probe's answer: " + what + " holds " + std::to_string(a->bytes.size()) +
                             " bytes, expected " + std::to_string(numel * elem));
  return std::move(a->bytes);
}

std::string f32(const json& t, uint64_t n, const std::string& what) { return tensor_bytes(t, "float32", n, 4, what); }
std::string i64(const json& t, uint64_t n, const std::string& what) { return tensor_bytes(t, "int64", n, 8, what); }

// "" when `raw` holds `want`; else the first element that differs, where PyTorch's launch drew it,
// and how many differ.
template <typename T>
std::string against_reference(const std::string& raw, const std::vector<T>& want, uint64_t threads, unsigned unroll,
                              const std::string& what) {
  size_t bad = 0, first = 0;
  for (size_t e = 0; e < want.size(); ++e)
    if (std::memcmp(raw.data() + e * sizeof(T), &want[e], sizeof(T)) != 0 && bad++ == 0) first = e;
  if (!bad) return "";
  uint64_t got_bits = 0, want_bits = 0;
  std::memcpy(&got_bits, raw.data() + first * sizeof(T), sizeof(T));
  std::memcpy(&want_bits, &want[first], sizeof(T));
  uint64_t q = first / threads;
  char b[256];
  std::snprintf(b, sizeof b,
                ": element %zu (thread %llu, loop trip %llu, Philox word %s) is 0x%0*llx, the reference 0x%0*llx; "
                "%zu of %zu elements differ",
                first, (unsigned long long)(first % threads), (unsigned long long)(q / unroll),
                unroll == 4 ? std::to_string(q % unroll).c_str() : (q % unroll ? "2-3" : "0-1"), int(2 * sizeof(T)),
                (unsigned long long)got_bits, int(2 * sizeof(T)), (unsigned long long)want_bits, bad, want.size());
  return what + b;
}

// The graph's pair of fills (float32 uniform, then int64 full range) at generator offset `offset`.
std::string fills_against_reference(const json& pair, uint64_t seed, uint64_t offset, uint64_t n, const Device& dev,
                                    const std::string& where) {
  if (offset % 4) return where + ": the generator's offset " + std::to_string(offset) + " is not a multiple of 4";
  uint64_t t = dev.threads(n);
  std::string e = against_reference(f32(pair.at(0), n, where), rng::torch_uniform_f32(seed, offset, n, t), t, 4,
                                    where + ", the float32 uniform fill at offset " + std::to_string(offset));
  if (!e.empty()) return e;
  uint64_t next = offset + rng::torch_fill_increment(n, t, 4);
  return against_reference(i64(pair.at(1), n, where), rng::torch_random_full64(seed, next, n, t), t, 2,
                           where + ", the int64 full-range fill at offset " + std::to_string(next));
}

class RngArtifact {
 public:
  RngArtifact(Probe& probe, Device dev) : probe_(probe), dev_(dev) {
    small_ = dev_.known() ? 1000 : 256;
    // Past four times the largest launch: every word of a block and a second loop trip are used.
    big_ = dev_.known() ? std::min<uint64_t>(4 * dev_.most_threads() + 1000, uint64_t(1) << 22) : 256;
  }

  // One whole-graph increment: the float32 fill, then the int64 one.
  uint64_t graph_increment(uint64_t n) const {
    uint64_t t = dev_.threads(n);
    return rng::torch_fill_increment(n, t, 4) + rng::torch_fill_increment(n, t, 2);
  }

  // One run of replays serves four cases (asked once; a failure is each case's error).
  const json& replays() {
    if (!replays_error_.empty()) throw std::runtime_error(replays_error_);
    if (replays_.is_null()) try {
        replays_ = ask({{"check", "replays"}, {"seed", kSeed}, {"numel", big_}, {"replays", 3}});
      } catch (const std::exception& e) {
        replays_error_ = e.what();
        throw;
      }
    return replays_;
  }

  std::string replay_equals_eager() {
    const json& a = replays();
    const uint64_t n = big_;
    for (size_t r = 0; r < a.at("replays").size(); ++r) {
      const json& rp = a["replays"][r];
      const std::string at =
          "replay " + std::to_string(r) + " (from offset " + std::to_string(as_u64(rp.at("offset"), "offset")) + ")";
      if (f32(rp.at("graph").at(0), n, at) != f32(rp.at("eager").at(0), n, at))
        return at +
               ": the graph's float32 uniform fill differs from the same fill run eagerly from the generator "
               "state the replay started at";
      if (i64(rp.at("graph").at(1), n, at) != i64(rp.at("eager").at(1), n, at))
        return at +
               ": the graph's int64 fill differs from the same fill run eagerly from the generator state the "
               "replay started at";
      if (as_u64(rp.at("offset_after"), "offset_after") != as_u64(rp.at("eager_offset_after"), "eager_offset_after"))
        return at + ": the replay left the generator at offset " + rp["offset_after"].dump() + ", the eager run at " +
               rp["eager_offset_after"].dump();
    }
    return "";
  }

  std::string replays_differ() {
    const json& a = replays();
    const json& rs = a.at("replays");
    if (rs.size() < 2) return "the probe ran " + std::to_string(rs.size()) + " replay(s), 2 are needed";
    for (size_t r = 0; r + 1 < rs.size(); ++r)
      for (int k = 0; k < 2; ++k) {
        const std::string at = "replays " + std::to_string(r) + " and " + std::to_string(r + 1);
        std::string x = k ? i64(rs[r].at("graph").at(1), big_, at) : f32(rs[r].at("graph").at(0), big_, at);
        std::string y = k ? i64(rs[r + 1].at("graph").at(1), big_, at) : f32(rs[r + 1].at("graph").at(0), big_, at);
        if (x == y)
          return at + " wrote the same " + (k ? "int64" : "float32 uniform") +
                 " fill: the graph's generator did not advance between replays (offsets " + rs[r]["offset"].dump() +
                 " and " + rs[r + 1]["offset"].dump() + ")";
      }
    return "";
  }

  std::string offset_law() {
    const json& a = replays();
    const uint64_t inc = graph_increment(big_);
    const json& rs = a.at("replays");
    if (rs.empty()) return "the probe ran no replay";
    uint64_t base = as_u64(rs[0].at("offset"), "offset");
    for (size_t r = 0; r < rs.size(); ++r) {
      uint64_t before = as_u64(rs[r].at("offset"), "offset"), after = as_u64(rs[r].at("offset_after"), "offset_after");
      if (before != base + r * inc)
        return "replay " + std::to_string(r) + " started at offset " + std::to_string(before) + ", expected " +
               std::to_string(base + r * inc) + " (the first replay's offset + " + std::to_string(r) +
               " x the graph's whole increment " + std::to_string(inc) + ")";
      if (after != before + inc)
        return "replay " + std::to_string(r) + " moved the generator from offset " + std::to_string(before) + " to " +
               std::to_string(after) + ", expected by the graph's whole increment " + std::to_string(inc);
    }
    return "";
  }

  std::string words() {
    const json& a = replays();
    uint64_t seed = as_u64(a.at("seed"), "seed");
    if (seed != kSeed)
      return "the generator reports seed " + std::to_string(seed) + ", it was seeded " + std::to_string(kSeed);
    for (size_t r = 0; r < a.at("replays").size(); ++r) {
      const json& rp = a["replays"][r];
      auto e = fills_against_reference(rp.at("graph"), seed, as_u64(rp.at("offset"), "offset"), big_, dev_,
                                       "replay " + std::to_string(r));
      if (!e.empty()) return e;
    }
    return "";
  }

  // Graph 0 and graph 1, each with its own generator, replayed alone and at once on their streams:
  // each replay starts where that graph's own replays left its generator, and writes its words.
  std::string two_streams() {
    const json order = json::array({0, 1, 1, "both", 0, "both"});
    json a = ask({{"check", "two_streams"}, {"seed", kSeed}, {"numel", small_}, {"order", order}});
    const uint64_t inc = graph_increment(small_);
    const json& seeds = a.at("seeds");
    if (!seeds.is_array() || seeds.size() != 2) throw std::runtime_error("the probe's answer: no pair of seeds");
    uint64_t expect_steps = 0;
    for (const auto& o : order) expect_steps += o.is_string() ? 2 : 1;
    if (a.at("steps").size() != expect_steps)
      throw std::runtime_error("the probe's answer: " + std::to_string(a["steps"].size()) + " replays, " +
                               std::to_string(expect_steps) + " were asked");
    uint64_t count[2] = {0, 0}, base[2] = {0, 0};
    for (size_t i = 0; i < a["steps"].size(); ++i) {
      const json& st = a["steps"][i];
      uint64_t k = as_u64(st.at("graph"), "graph");
      if (k > 1) throw std::runtime_error("the probe's answer: graph " + std::to_string(k) + ", there are two");
      uint64_t off = as_u64(st.at("offset"), "offset");
      if (count[k] == 0) base[k] = off;
      const std::string at = "graph " + std::to_string(k) + "'s replay " + std::to_string(count[k]) + " (step " +
                             std::to_string(i) + " of " + order.dump() + ")";
      if (off != base[k] + count[k] * inc)
        return at + " started at offset " + std::to_string(off) + ", expected " +
               std::to_string(base[k] + count[k] * inc) + ": its generator moved with the other graph's replays";
      if (auto e = fills_against_reference(st.at("out"), as_u64(seeds[k], "seed"), off, small_, dev_, at); !e.empty())
        return e;
      ++count[k];
    }
    for (int k = 0; k < 2; ++k) {
      uint64_t fin = as_u64(a.at("final_offsets").at(k), "final offset");
      if (fin != base[k] + count[k] * inc)
        return "graph " + std::to_string(k) + "'s generator ended at offset " + std::to_string(fin) + " after " +
               std::to_string(count[k]) + " replays, expected " + std::to_string(base[k] + count[k] * inc);
    }
    return "";
  }

  // A graph switching between the generator's state (graphsafe_get_state) and a clone of it
  // (clone_state): each replay equals the eager steps on a twin, the two states advance by what was
  // drawn from each (the clone once per replay, the original twice), the words are the reference's;
  // outside a graph, a cloned state set back with graphsafe_set_state draws the same again.
  std::string graphsafe_state() {
    json a = ask({{"check", "graphsafe_state"}, {"seed", kSeed}, {"numel", small_}, {"replays", 3}});
    const uint64_t n = small_, t = dev_.threads(n), inc = rng::torch_fill_increment(n, t, 4);
    const json& rs = a.at("replays");
    if (rs.empty()) return "the probe ran no replay";
    for (size_t r = 0; r < rs.size(); ++r) {
      const json& rp = rs[r];
      const std::string at = "replay " + std::to_string(r);
      uint64_t old_off = as_u64(rp.at("offsets").at(0), "offset"), new_off = as_u64(rp.at("offsets").at(1), "offset");
      if (old_off != 2 * r * inc || new_off != r * inc)
        return at + " started with the original state at offset " + std::to_string(old_off) + " and the clone at " +
               std::to_string(new_off) + ", expected " + std::to_string(2 * r * inc) + " and " +
               std::to_string(r * inc) + " (two draws from the original, one from the clone, per replay)";
      if (rp.at("offsets_after") != rp.at("eager_offsets_after"))
        return at + " left the states at offsets " + rp["offsets_after"].dump() + ", the eager steps at " +
               rp["eager_offsets_after"].dump();
      const uint64_t at_off[3] = {new_off, old_off, old_off + inc};
      const char* which[3] = {"the draw from the cloned state", "the first draw from the original state",
                              "the second draw from the original state"};
      for (int k = 0; k < 3; ++k) {
        std::string g = f32(rp.at("graph").at(k), n, at), e = f32(rp.at("eager").at(k), n, at);
        if (g != e) return at + ": " + which[k] + " differs from the same steps run eagerly";
        auto d = against_reference(g, rng::torch_uniform_f32(kSeed, at_off[k], n, t), t, 4,
                                   at + ", " + which[k] + " at offset " + std::to_string(at_off[k]));
        if (!d.empty()) return d;
      }
    }
    const json& rt = a.at("roundtrip");
    uint64_t seed = as_u64(rt.at("seed"), "seed");
    std::string first = f32(rt.at("first"), n, "round trip"), again = f32(rt.at("again"), n, "round trip");
    if (first != again)
      return "a state saved with clone_state() and set back with graphsafe_set_state() drew different numbers";
    if (as_u64(rt.at("offset_after"), "offset") != inc)
      return "after the round trip the generator is at offset " + rt["offset_after"].dump() + ", expected " +
             std::to_string(inc);
    return against_reference(first, rng::torch_uniform_f32(seed, 0, n, t), t, 4, "the round trip's draw");
  }

 private:
  Probe& probe_;
  Device dev_;
  uint64_t small_ = 256, big_ = 256;
  json replays_;
  std::string replays_error_;

  json ask(json req) {
    req["op"] = "rng_graph";
    json a = probe_.ask(std::move(req));
    if (!a.value("ok", false))
      throw std::runtime_error("torch raised " + a.value("error_type", std::string("?")) + ": " +
                               a.value("message", std::string()));
    return a;
  }
};

}  // namespace

std::vector<CaseOutcome> rng_graph_artifact_cases(Probe& probe, bool want_cuda, bool has_stream_cases) {
  std::unique_ptr<RngArtifact> a;
  const std::vector<std::pair<std::string, std::function<std::string()>>> cases = {
      {"replay_equals_eager_at_offset", [&] { return a->replay_equals_eager(); }},
      {"consecutive_replays_differ", [&] { return a->replays_differ(); }},
      {"offset_advances_by_graph_increment", [&] { return a->offset_law(); }},
      {"philox_words_match_reference", [&] { return a->words(); }},
      {"two_streams_own_generators", [&] { return a->two_streams(); }},
      {"graphsafe_state_round_trip", [&] { return a->graphsafe_state(); }}};
  std::vector<CaseOutcome> out;
  if (std::string why = artifact_cuda_unavailable(probe, want_cuda); !why.empty()) {
    for (const auto& c : cases)
      out.push_back(skipped_case(kSuite, c.first, kBackend, why + " (rng_graph runs CUDA graphs)"));
    return out;
  }
  const json& cuda = probe.artifact()["cuda_device"];
  Device dev;
  // The device's figures from the probe, range-checked (a value out of range leaves the layout
  // unknown: fills of one block only).
  auto figure = [&](const char* key) -> uint32_t {
    const json& v = cuda.value(key, json());
    return v.is_number_unsigned() && v.get<uint64_t>() <= (1u << 20) ? static_cast<uint32_t>(v.get<uint64_t>()) : 0;
  };
  dev.sm_count = figure("sm_count");
  dev.max_threads_per_sm = figure("max_threads_per_sm");
  a = std::make_unique<RngArtifact>(probe, dev);
  for (const auto& c : cases) out.push_back(run_case(kSuite, c.first, kBackend, c.second));
  if (has_stream_cases)
    out.push_back(skipped_case(kSuite, "stream_cases", kBackend,
                               "--cases name curand words at (seed, subsequence, offset); through the artifact its "
                               "words are judged inside its fills (philox_words_match_reference)"));
  return out;
}

}  // namespace wc::smoke
