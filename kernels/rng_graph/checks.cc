#include "rng_graph/checks.h"

#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

#include "philox.h"

namespace wc::rng {

using philox::Counter;
using philox::Key;
using philox::Stream;

std::string hex_words(const std::vector<uint32_t>& w) {
  std::string s;
  char b[12];
  for (size_t i = 0; i < w.size(); ++i) {
    std::snprintf(b, sizeof b, "%s%08x", i ? " " : "", w[i]);
    s += b;
  }
  return s;
}

std::string compare_words(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want,
                          const std::string& what) {
  if (got.size() != want.size())
    return what + ": " + std::to_string(got.size()) + " words, expected " + std::to_string(want.size());
  std::string msg;
  size_t shown = 0, bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;
    ++bad;
    if (shown < 5) {
      char b[96];
      std::snprintf(b, sizeof b, "%s[%zu] %08x != %08x", shown ? "; " : "", i, got[i], want[i]);
      msg += b;
      ++shown;
    }
    if (bad >= 10) break;  // enough to diagnose
  }
  return bad ? what + ": " + msg + (bad >= 10 ? " ..." : "") : "";
}

std::vector<uint32_t> reference_stream(uint64_t seed, uint64_t subsequence, uint64_t offset, size_t count) {
  auto s = Stream::init(seed, subsequence, offset);
  std::vector<uint32_t> out(count);
  for (auto& w : out) w = s.next();
  return out;
}

std::string check_known_answers() {
  // Random123's kat_vectors for philox4x32_10.
  struct Kat {
    Counter c;
    Key k;
    Counter out;
  };
  const Kat kats[] = {{{{0, 0, 0, 0}}, {{0, 0}}, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
                      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
                       {{0xffffffff, 0xffffffff}},
                       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
                      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
                       {{0xa4093822, 0x299f31d0}},
                       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}}};
  for (const auto& k : kats) {
    Counter got = philox::philox4x32_10(k.c, k.k);
    std::string e = compare_words({got.w, got.w + 4}, {k.out.w, k.out.w + 4}, "Random123 known answer");
    if (!e.empty()) return e;
  }
  // The stream mapping: seed 0, subsequence 0, offset 0 starts with the first known answer.
  return compare_words(reference_stream(0, 0, 0, 4), {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}, "stream(0,0,0)");
}

// stream(seed, sub, offset + k) equals stream(seed, sub, offset) shifted by k, for every k.
std::string check_offset_law() {
  const uint64_t seeds[] = {0, 42, 0x123456789abcdefull};
  const uint64_t offsets[] = {0, 1, 3, 4, 5, 1000003, (1ull << 34) + 2};
  for (uint64_t seed : seeds)
    for (uint64_t off : offsets) {
      auto base = reference_stream(seed, 7, off, 40);
      for (uint64_t k = 0; k < 20; ++k) {
        auto shifted = reference_stream(seed, 7, off + k, 20);
        std::string e = compare_words(
            shifted, {base.begin() + static_cast<long>(k), base.begin() + static_cast<long>(k) + 20},
            "offset law at seed " + std::to_string(seed) + " offset " + std::to_string(off) + "+" + std::to_string(k));
        if (!e.empty()) return e;
      }
    }
  return "";
}

// The counter as a 128-bit integer, computed independently of add_low/add_high.
__extension__ typedef unsigned __int128 u128;
static Counter counter_of(u128 v) {
  Counter c;
  for (int i = 0; i < 4; ++i) c.w[i] = static_cast<uint32_t>(v >> (32 * i));
  return c;
}

std::string check_subsequence_and_carries() {
  struct Case {
    uint64_t seed, sub, offset;
  };
  const Case cases[] = {{5, 0xffffffffull, 0},          // subsequence crosses the 32-bit word
                        {5, 0xffffffffffffffffull, 4},  // highest subsequence
                        {9, 3, 4 * 0xffffffffull + 2},  // low counter crosses its 32-bit word mid-stream
                        {9, 0x1ffffffffull, 4 * 0xfffffffffull}};
  for (const auto& c : cases) {
    u128 ctr = (static_cast<u128>(c.sub) << 64) + c.offset / 4;
    unsigned idx = c.offset % 4;
    std::vector<uint32_t> want;
    Key key{{static_cast<uint32_t>(c.seed), static_cast<uint32_t>(c.seed >> 32)}};
    while (want.size() < 16) {
      Counter out = philox::philox4x32_10(counter_of(ctr), key);
      for (; idx < 4 && want.size() < 16; ++idx) want.push_back(out.w[idx]);
      idx = 0;
      ++ctr;
    }
    std::string e =
        compare_words(reference_stream(c.seed, c.sub, c.offset, 16), want,
                      "carry case subsequence " + std::to_string(c.sub) + " offset " + std::to_string(c.offset));
    if (!e.empty()) return e;
  }
  // The low 64 bits wrapping into the subsequence words.
  Counter c{{0xffffffff, 0xffffffff, 0xffffffff, 0}};
  philox::add_low(c, 1);
  if (c.w[0] || c.w[1] || c.w[2] || c.w[3] != 1) return "add_low does not carry across all four counter words";
  return "";
}

std::string check_uniform_mapping() {
  if (philox::uniform(0) != std::ldexp(1.0f, -33)) return "uniform(0) is not 2^-33";
  if (philox::uniform(0xffffffffu) != 1.0f) return "uniform(0xffffffff) is not 1.0 (curand_uniform's range is (0, 1])";
  for (uint32_t x : {1u, 2u, 0x7fffffffu, 0x80000000u, 0xfffffeffu}) {
    float u = philox::uniform(x);
    if (!(u > 0.0f && u <= 1.0f)) return "uniform(" + std::to_string(x) + ") is outside (0, 1]";
    float want = static_cast<float>(x) * 2.3283064365386963e-10f + 1.16415321826934814e-10f;
    if (std::memcmp(&u, &want, 4) != 0)
      return "uniform(" + std::to_string(x) + ") differs from x*2^-32 + 2^-33 in float";
  }
  return "";
}

namespace {

struct NullSlots : SlotStore {
  uint64_t* alloc_slot() override { return new uint64_t(0); }
  void free_slot(uint64_t* s) override { delete s; }
  void write(uint64_t* s, uint64_t v, int) override { *s = v; }
};

struct Graph {
  CaptureId id;
  int graph;
  uint64_t increment;
};

constexpr uint32_t kThreads = 33;  // not a multiple of any block size
constexpr uint32_t kPer1 = 5, kPer2 = 4;

// Two RNG kernels, the first consuming 5 words per thread (rounded to 8).
Graph capture_two(Backend& be, Generator& g, int stream, int a, int b) {
  CaptureId id = g.capture_begin();
  be.begin_capture(stream);
  be.fill(stream, a, kThreads, kPer1, g.philox_args(kPer1, &id));
  be.fill(stream, b, kThreads, kPer2, g.philox_args(kPer2, &id));
  int graph = be.end_capture(stream);
  return {id, graph, g.capture_end(id)};
}

std::vector<uint32_t> expected_fill(uint64_t seed, uint64_t offset, uint32_t per) {
  std::vector<uint32_t> out(size_t(kThreads) * per);
  for (uint32_t t = 0; t < kThreads; ++t) {
    auto s = Stream::init(seed, t, offset);
    for (uint32_t j = 0; j < per; ++j) out[size_t(t) * per + j] = s.next();
  }
  return out;
}

}  // namespace

std::string check_increment_rounding() {
  NullSlots slots;
  Generator g(1, slots);
  for (uint64_t n : {0u, 1u, 3u, 4u, 5u, 8u, 9u}) {
    uint64_t before = g.offset();
    g.philox_args(n, nullptr);
    if (g.offset() - before != Generator::round_increment(n) || Generator::round_increment(n) % 4)
      return "increment " + std::to_string(n) + " advanced the offset by " + std::to_string(g.offset() - before);
  }
  return "";
}

std::string check_replay_equals_eager(Backend& be, bool buggy) {
  const uint64_t seed = 0xC0FFEE;
  Generator g(seed, be.slots(), buggy);
  g.set_offset(12);
  int s = be.new_stream(), a = be.alloc(kThreads * kPer1), b = be.alloc(kThreads * kPer2);
  g.philox_args(kPer2, nullptr);  // some eager use before capture moves the base offset
  Graph gr = capture_two(be, g, s, a, b);
  uint64_t inc = Generator::round_increment(kPer1) + Generator::round_increment(kPer2);
  if (gr.increment != inc)
    return "whole-graph increment is " + std::to_string(gr.increment) + ", expected " + std::to_string(inc);
  uint64_t o0 = g.offset();
  for (int n = 0; n < 3; ++n) {
    replay(be, g, gr.id, gr.graph, s);
    uint64_t base = o0 + uint64_t(n) * inc;
    std::string e = compare_words(be.read(a), expected_fill(seed, base, kPer1),
                                  be.name() + " replay " + std::to_string(n) + " kernel 1");
    if (e.empty())
      e = compare_words(be.read(b), expected_fill(seed, base + Generator::round_increment(kPer1), kPer2),
                        be.name() + " replay " + std::to_string(n) + " kernel 2");
    if (!e.empty()) return e;
  }
  if (g.offset() != o0 + 3 * inc)
    return "after 3 replays the offset is " + std::to_string(g.offset()) + ", expected " + std::to_string(o0 + 3 * inc);
  return "";
}

std::string check_consecutive_replays_differ(Backend& be) {
  Generator g(7, be.slots());
  int s = be.new_stream(), a = be.alloc(kThreads * kPer1), b = be.alloc(kThreads * kPer2);
  Graph gr = capture_two(be, g, s, a, b);
  replay(be, g, gr.id, gr.graph, s);
  auto first = be.read(a);
  replay(be, g, gr.id, gr.graph, s);
  auto second = be.read(a);
  size_t same = 0;
  for (size_t i = 0; i < first.size(); ++i) same += first[i] == second[i];
  return same > 2 ? "consecutive replays produced " + std::to_string(same) + " identical words of " +
                        std::to_string(first.size())
                  : "";
}

std::string check_reseed_identical_replays(Backend& be) {
  Generator g(11, be.slots());
  int s = be.new_stream(), a = be.alloc(kThreads * kPer1), b = be.alloc(kThreads * kPer2);
  Graph gr = capture_two(be, g, s, a, b);
  std::vector<std::vector<uint32_t>> runs;
  for (int i = 0; i < 2; ++i) {
    g.set_seed(99);
    replay(be, g, gr.id, gr.graph, s);
    runs.push_back(be.read(a));
    auto bb = be.read(b);
    runs.back().insert(runs.back().end(), bb.begin(), bb.end());
  }
  std::string e = compare_words(runs[1], runs[0], "replay after the same reseed");
  if (!e.empty()) return e;
  return compare_words(
      runs[0],
      [] {
        auto x = expected_fill(99, 0, kPer1);
        auto y = expected_fill(99, Generator::round_increment(kPer1), kPer2);
        x.insert(x.end(), y.begin(), y.end());
        return x;
      }(),
      "reseeded replay against the reference");
}

std::string check_graph_without_rng(Backend& be) {
  Generator g(3, be.slots());
  g.set_offset(40);
  int s = be.new_stream(), a = be.alloc(16);
  CaptureId id = g.capture_begin();
  be.begin_capture(s);
  be.add_one(s, a);
  int graph = be.end_capture(s);
  uint64_t inc = g.capture_end(id);
  if (inc != 0) return "a graph without RNG reports increment " + std::to_string(inc);
  for (int i = 0; i < 3; ++i) {
    replay(be, g, id, graph, s);
  }
  if (g.offset() != 40) return "replaying a graph without RNG moved the offset to " + std::to_string(g.offset());
  auto v = be.read(a);
  if (v[0] != 3) return "the graph's kernel ran " + std::to_string(v[0]) + " times, expected 3";
  return "";
}

std::string check_seed_change_during_capture(Backend& be) {
  Generator g(5, be.slots());
  int s = be.new_stream(), a = be.alloc(kThreads * kPer2);
  g.philox_args(8, nullptr);
  CaptureId id = g.capture_begin();
  be.begin_capture(s);
  be.fill(s, a, kThreads, kPer2, g.philox_args(kPer2, &id));
  std::string result;
  uint64_t before = g.offset();
  g.set_seed(5);  // no-op: allowed, must not reset the offset under the graph
  if (g.offset() != before) result = "a no-op reseed during capture moved the offset";
  bool threw = false;
  try {
    g.set_seed(6);
  } catch (const SeedChangeDuringCapture&) {
    threw = true;
  }
  be.end_capture(s);
  g.capture_end(id);
  if (!threw && result.empty()) result = "changing the seed during capture was accepted";
  if (g.seed() != 5 && result.empty()) result = "the rejected seed change still changed the seed";
  g.set_seed(6);  // allowed again once the capture ended
  if (g.seed() != 6 && result.empty()) result = "reseeding after the capture did not take";
  return result;
}

// Two graphs captured at the same time from two threads, each on its own stream, with their RNG
// calls interleaved, must equal the same two graphs captured one after the other.
std::string check_concurrent_captures(Backend& be, bool buggy) {
  auto run = [&](bool concurrent) {
    Generator g(2024, be.slots(), buggy);
    int s1 = be.new_stream(), s2 = be.new_stream();
    int a1 = be.alloc(kThreads * kPer1), b1 = be.alloc(kThreads * kPer2), a2 = be.alloc(kThreads * kPer1),
        b2 = be.alloc(kThreads * kPer2);
    Graph g1{}, g2{};
    if (concurrent) {
      std::barrier sync(2);
      auto body = [&](int s, int a, int b, Graph& out) {
        CaptureId id = g.capture_begin();
        be.begin_capture(s);
        sync.arrive_and_wait();
        be.fill(s, a, kThreads, kPer1, g.philox_args(kPer1, &id));
        sync.arrive_and_wait();  // both first kernels are recorded before either second one
        be.fill(s, b, kThreads, kPer2, g.philox_args(kPer2, &id));
        sync.arrive_and_wait();
        out = {id, be.end_capture(s), g.capture_end(id)};
      };
      std::thread t1(body, s1, a1, b1, std::ref(g1)), t2(body, s2, a2, b2, std::ref(g2));
      t1.join();
      t2.join();
    } else {
      g1 = capture_two(be, g, s1, a1, b1);
      g2 = capture_two(be, g, s2, a2, b2);
    }
    std::vector<uint32_t> out;
    for (const auto& [gr, s, a, b] : {std::tuple{g1, s1, a1, b1}, std::tuple{g2, s2, a2, b2}}) {
      replay(be, g, gr.id, gr.graph, s);
      for (int buf : {a, b}) {
        auto v = be.read(buf);
        out.insert(out.end(), v.begin(), v.end());
      }
    }
    return out;
  };
  return compare_words(run(true), run(false), be.name() + " concurrent captures vs sequential captures");
}

// Every transition of a capture's state machine, with PyTorch's refusals: set_offset only when
// no capture is open and only multiples of 4; a closed capture cannot grow; replay only of a
// closed, known capture; capture_end once; the 32-bit intragraph offset may not overflow.
std::string check_state_machine(Backend& be) {
  Generator g(9, be.slots());
  auto refused = [](const char* what, auto&& fn, const char* fragment) -> std::string {
    try {
      fn();
    } catch (const GeneratorStateError& e) {
      if (std::string(e.what()).find(fragment) == std::string::npos)
        return std::string(what) + " refused with \"" + e.what() + "\", expected \"" + fragment + "\"";
      return "";
    }
    return std::string(what) + " was accepted";
  };
  std::string e;
  if (!(e = refused(
            "set_offset(6)", [&] { g.set_offset(6); }, "multiple of 4"))
           .empty())
    return e;
  g.set_offset(8);
  if (g.offset() != 8) return "set_offset(8) left the offset at " + std::to_string(g.offset());
  int s = be.new_stream(), a = be.alloc(kThreads * kPer1), b = be.alloc(kThreads * kPer2);
  CaptureId id = g.capture_begin();
  if (g.phase(id) != Generator::Phase::open) return "a new capture is not open";
  if (!(e = refused(
            "set_offset during capture", [&] { g.set_offset(16); }, "capture is under way"))
           .empty())
    return e;
  if (!(e = refused(
            "replay of an open capture", [&] { g.replay_prologue(id, s); }, "still open"))
           .empty())
    return e;
  be.begin_capture(s);
  be.fill(s, a, kThreads, kPer1, g.philox_args(kPer1, &id));
  int graph = be.end_capture(s);
  uint64_t inc = g.capture_end(id);
  if (g.phase(id) != Generator::Phase::closed) return "an ended capture is not closed";
  if (!(e = refused(
            "capture_end twice", [&] { g.capture_end(id); }, "already ended"))
           .empty())
    return e;
  if (!(e = refused(
            "a launch into a closed capture", [&] { g.philox_args(4, &id); }, "cannot grow"))
           .empty())
    return e;
  CaptureId unknown = id + 1000;
  if (!(e = refused(
            "replay of an unknown capture", [&] { g.replay_prologue(unknown, s); }, "unknown capture"))
           .empty())
    return e;
  if (!(e = refused(
            "a launch into an unknown capture", [&] { g.philox_args(4, &unknown); }, "unknown capture"))
           .empty())
    return e;
  // The closed capture still replays, at the offset the state machine left.
  replay(be, g, id, graph, s);
  if (auto m = compare_words(be.read(a), expected_fill(9, 8, kPer1), be.name() + " replay after the refusals");
      !m.empty())
    return m;
  if (g.offset() != 8 + inc) return "the replay advanced the offset to " + std::to_string(g.offset());
  // Intragraph overflow: PyTorch keeps the intragraph offset in 32 bits.
  CaptureId big = g.capture_begin();
  g.philox_args(uint64_t(UINT32_MAX) - 7, &big);
  if (!(e = refused(
            "an intragraph offset past 2^32", [&] { g.philox_args(16, &big); }, "overflow"))
           .empty())
    return e;
  g.capture_end(big);
  g.release(big);
  if (g.phase(big)) return "a released capture is still known";
  (void)b;
  return "";
}

// The fill kernel over awkward sizes: 0, 1, 7, 65, 129 threads, several blocks, 0 words per
// thread; eager and replayed, each against the reference stream.
std::string check_size_sweep(Backend& be) {
  struct Size {
    uint32_t threads, per;
  };
  const std::vector<Size> sizes = {{0, 4}, {1, 4}, {7, 3}, {65, 5}, {129, 8}, {1000, 2}, {4097, 1}, {64, 0}};
  const uint64_t seed = 0x5eed;
  for (const auto& sz : sizes) {
    Generator g(seed, be.slots());
    int s = be.new_stream(), buf = be.alloc(size_t(sz.threads) * sz.per);
    auto want = [&](uint64_t offset) {
      std::vector<uint32_t> out(size_t(sz.threads) * sz.per);
      for (uint32_t t = 0; t < sz.threads; ++t) {
        auto w = reference_stream(seed, t, offset, sz.per);
        std::copy(w.begin(), w.end(), out.begin() + ptrdiff_t(size_t(t) * sz.per));
      }
      return out;
    };
    const std::string what = be.name() + " " + std::to_string(sz.threads) + " threads x " + std::to_string(sz.per);
    be.fill(s, buf, sz.threads, sz.per, g.philox_args(sz.per, nullptr));
    if (auto m = compare_words(be.read(buf), want(0), what + " eager"); !m.empty()) return m;
    CaptureId id = g.capture_begin();
    be.begin_capture(s);
    be.fill(s, buf, sz.threads, sz.per, g.philox_args(sz.per, &id));
    int graph = be.end_capture(s);
    uint64_t inc = g.capture_end(id);
    uint64_t base = g.offset();
    for (int n = 0; n < 2; ++n) {
      replay(be, g, id, graph, s);
      if (auto m = compare_words(be.read(buf), want(base + uint64_t(n) * inc), what + " replay " + std::to_string(n));
          !m.empty())
        return m;
    }
  }
  return "";
}

}  // namespace wc::rng
