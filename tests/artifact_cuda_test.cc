// wheelsmoke's artifact mode on a GPU (issue 17), without one. A scripted fake probe reports a CUDA
// device and answers rng_graph with fills it computes itself (its own Philox, written apart from
// kernels/philox.h and laid out as ATen's distribution kernels lay it out), correct or broken one
// way per mode: the judging of replays, offsets, words, two streams and graph-safe states is proved
// here. A mock torch modelling CUDA graphs' generator states runs the real probe's rng_graph code.
// That the real artifact on a real GPU gives what they give is for a GPU runner (make test-torch
// there, or wheelsmoke run --python on it).
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "philox.h"
#include "rng_graph/checks.h"
#include "rng_graph/torch_fill.h"
#include "support/test_support.h"

namespace wc {
namespace {

using testing::run_command;
using testing::shell_quote;

// A small device (2 SMs of 512 threads: at most 4 blocks of 256) and its fills: Philox written
// apart from kernels/philox.h, laid out as ATen lays out torch.rand (unroll 4) and the full-range
// int64 random_ (unroll 2). Shared by the fake probe and the mock torch below.
const char* kPhiloxPy = R"PY(
import struct
M = 0xffffffff
SMS, THREADS_PER_SM = 2, 512


def philox(c, k):
    c, k = list(c), list(k)
    for r in range(10):
        if r:
            k = [(k[0] + 0x9E3779B9) & M, (k[1] + 0xBB67AE85) & M]
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k[0]) & M, p1 & M, ((p0 >> 32) ^ c[3] ^ k[1]) & M, p0 & M]
    return c


assert philox([0] * 4, [0, 0]) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]


def threads(n):
    return min((n + 255) // 256, SMS * (THREADS_PER_SM // 256)) * 256


def inc(n, unroll):
    return ((n - 1) // (threads(n) * unroll) + 1) * 4


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def fill(seed, off, n, unroll, swap_key=False):
    t = threads(n)
    key = [seed & M, (seed >> 32) & M]
    if swap_key:
        key = key[::-1]
    out = []
    for e in range(n):
        q, th = divmod(e, t)
        k, i = divmod(q, unroll)
        ctr = off // 4 + k
        w = philox([ctr & M, ctr >> 32, th & M, th >> 32], key)
        if unroll == 4:
            u = f32(f32(w[i]) * 2.0 ** -32 + 2.0 ** -33)
            out.append(struct.pack("<f", 0.0 if u == 1.0 else u))
        else:
            out.append(struct.pack("<Q", (w[2 * i] << 32) | w[2 * i + 1]))
    return b"".join(out)
)PY";

// The fake probe: answers rng_graph itself, correct or broken one way per mode (argv[1]).
const char* kFakeCudaProbe = R"PY(
import base64, json, sys
mode = sys.argv[1]
_fill = fill


def fill(seed, off, n, unroll):
    return _fill(seed, off, n, unroll, swap_key=mode == "bad_words")


def tensor(dtype, raw, n):
    return {"dtype": dtype, "shape": [n], "strides": [1], "data": base64.b64encode(raw).decode()}


def pair(seed, off, n):
    return [tensor("float32", fill(seed, off, n, 4), n), tensor("int64", fill(seed, off + inc(n, 4), n, 2), n)]


def replays(req):
    seed, n = req["seed"], req["numel"]
    g = inc(n, 4) + inc(n, 2)
    rs = []
    for r in range(req["replays"]):
        off = 0 if mode == "repeat" else r * g
        out = pair(seed, off, n)
        rs.append({"offset": off, "offset_after": off + g, "graph": out, "eager": out, "eager_offset_after": off + g})
    return {"seed": seed, "offset_after_capture": 0, "replays": rs}


def two_streams(req):
    seed, n = req["seed"], req["numel"]
    g = inc(n, 4) + inc(n, 2)
    offs, steps = [0, 0], []
    for step in req["order"]:
        ks = [0, 1] if step == "both" else [step]
        for k in ks:
            steps.append({"graph": k, "offset": offs[k], "out": pair(seed + k, offs[k], n)})
        for k in ks:
            if mode == "shared":  # one counter for every capture: each replay moves both generators
                offs = [o + g for o in offs]
            else:
                offs[k] += g
    return {"seeds": [seed, seed + 1], "steps": steps, "final_offsets": offs}


def graphsafe_state(req):
    seed, n = req["seed"], req["numel"]
    i = inc(n, 4)
    rs = []
    for r in range(req["replays"]):
        old, new = 2 * r * i, r * i
        outs = [tensor("float32", fill(seed, o, n, 4), n) for o in (new, old, old + i)]
        rs.append({"offsets": [old, new], "offsets_after": [old + 2 * i, new + i],
                   "eager_offsets_after": [old + 2 * i, new + i], "graph": outs, "eager": outs})
    first = fill(seed + 2, 0, n, 4)
    again = fill(seed + 2, i, n, 4) if mode == "lost_state" else first
    return {"seed": seed, "replays": rs, "roundtrip": {"seed": seed + 2, "first": tensor("float32", first, n),
                                                      "again": tensor("float32", again, n), "offset_after": i}}


for line in sys.stdin:
    req = json.loads(line)
    ans = {"ok": True}
    if req["op"] == "hello":
        ans.update({"torch": "9.9.9-fakecuda", "cuda": "13.2", "device": "cuda:Fake GPU", "python": "fake",
                    "cuda_device": {"name": "Fake GPU", "capability": [9, 0], "count": 1 if mode != "four_gpus" else 4,
                                    "sm_count": SMS, "max_threads_per_sm": THREADS_PER_SM}})
    elif req["op"] == "rng_graph":
        ans.update({"replays": replays, "two_streams": two_streams, "graphsafe_state": graphsafe_state}[req["check"]](req))
        if mode == "huge":  # an answer of 48 MB: read and parsed whole, the extra field ignored
            ans["padding"] = "x" * 48_000_000
    else:  # pad and dtensor: say what was asked, so the test sees where the request was sent
        ans = {"ok": False, "error_type": "Fake", "message": "asked %s on %s" % (req["op"], req.get("device", req.get("backend")))}
    ans["id"] = req.get("id")
    print(json.dumps(ans), flush=True)
)PY";

// A mock torch with a CUDA device, for the probe itself (src/smoke/artifact/wheelsmoke_probe.py): the
// probe's rng_graph code runs unchanged against it, and wheelsmoke judges what it returns. The mock
// models PyTorch's graph-safe generator states as torch 2.15's CUDAGeneratorImpl does: a capture
// records each draw at an intragraph offset of that capture's state and leaves the eager offset
// alone; a replay starts each state it drew from at the state's offset then and advances it by the
// whole increment; graphsafe_get_state shares a state, clone_state copies it, graphsafe_set_state
// points the generator at one. MOCK_TORCH_MODE=repeat makes replays forget to advance.
const char* kMockTorch = R"PY(
import contextlib, os, types, warnings
__version__ = "0.0.0+mockcuda"
MODE = os.environ.get("MOCK_TORCH_MODE", "good")
version = types.SimpleNamespace(cuda="13.2")


class dtype:
    def __init__(self, name, size):
        self.name, self.size = name, size

    def __str__(self):
        return "torch." + self.name


float32, int64, uint8 = dtype("float32", 4), dtype("int64", 8), dtype("uint8", 1)


class Tensor:
    def __init__(self, n, dt, data=None):
        self.n, self.dtype = n, dt
        self.data = data if data is not None else bytes(n * dt.size)
        self.shape = (n,)

    def stride(self):
        return (1,)

    def detach(self):
        return self

    contiguous = cpu = detach

    def view(self, what):
        return Tensor(len(self.data), uint8, self.data) if what is uint8 else self

    def numpy(self):
        raise ImportError("no numpy in the mock")

    def tolist(self):
        return list(self.data)

    def uniform_(self, generator):
        generator._draw(self, 4)
        return self

    def random_(self, frm, to, generator):
        assert frm == -2 ** 63 and to is None, "only the full int64 range is mocked"
        generator._draw(self, 2)
        return self


def empty(n, device=None, dtype=float32):
    return Tensor(n, dtype)


def empty_like(t):
    return Tensor(t.n, t.dtype)


def rand(n, device=None, generator=None):
    return empty(n).uniform_(generator=generator)


class _State:
    def __init__(self, seed, offset):
        self.seed, self.offset = seed, offset


class Generator:
    def __init__(self, device="cpu", state=None):
        assert device == "cuda" or state is not None
        self.state = state or _State(67280421310721, 0)

    def manual_seed(self, seed):
        self.state.seed, self.state.offset = seed, 0
        return self

    def initial_seed(self):
        return self.state.seed

    def get_offset(self):
        return self.state.offset

    def get_state(self):
        return Tensor(16, uint8, struct.pack("<QQ", self.state.seed, self.state.offset))

    def set_state(self, t):
        self.state.seed, self.state.offset = struct.unpack("<QQ", t.data)

    def graphsafe_get_state(self):
        return Generator(state=self.state)

    def graphsafe_set_state(self, g):
        self.state = g.state

    def clone_state(self):
        return Generator(state=_State(self.state.seed, self.state.offset))

    def _draw(self, t, unroll):
        st, g = self.state, cuda._capturing
        if g is not None:  # recorded at this capture's offset for the state
            intra = g.intra.get(id(st), 0)
            g.intra[id(st)], g.states[id(st)] = intra + inc(t.n, unroll), st
            g.ops.append((t, st, intra, unroll))
            return
        t.data = fill(st.seed, st.offset, t.n, unroll)
        st.offset += inc(t.n, unroll)


class _Graph:
    def __init__(self):
        self.ops, self.intra, self.states = [], {}, {}

    def register_generator_state(self, gen):
        warnings.warn("register_generator_state() is deprecated, and now a no-op", FutureWarning)

    def replay(self):
        base = {k: st.offset for k, st in self.states.items()}
        for k, st in self.states.items():
            st.offset += 0 if MODE == "repeat" else self.intra[k]
        for t, st, intra, unroll in self.ops:
            t.data = fill(st.seed, base[id(st)] + intra, t.n, unroll)


@contextlib.contextmanager
def _graph(g, pool=None, stream=None):
    cuda._capturing = g
    try:
        yield
    finally:
        cuda._capturing = None


cuda = types.SimpleNamespace(
    _capturing=None, is_available=lambda: True, device_count=lambda: 1, get_device_name=lambda i=0: "Mock GPU",
    get_device_properties=lambda i=0: types.SimpleNamespace(name="Mock GPU", major=9, minor=0,
                                                            multi_processor_count=SMS,
                                                            max_threads_per_multi_processor=THREADS_PER_SM),
    synchronize=lambda: None, Stream=lambda: object(), stream=lambda s: contextlib.nullcontext(), CUDAGraph=_Graph,
    graph=_graph)
)PY";

class FakeCudaProbe : public ::testing::Test {
 protected:
  testing::TempDir dir;
  testing::RunResult run(const std::string& mode, const std::string& args) {
    return run_command(
        std::string(WS_BINARY) + " run " + args + " --python " +
        shell_quote(testing::fake_interpreter(dir, (std::string(kPhiloxPy) + kFakeCudaProbe).c_str(), mode)) +
        " --case-timeout 60 --format json");
  }
  // case name -> the finding's message ("" for a pass; "skipped: why" for a skip)
  static std::map<std::string, std::string> outcomes(const std::string& out) {
    std::map<std::string, std::string> m;
    auto j = nlohmann::json::parse(out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << out;
    if (j.is_discarded()) return m;
    for (const auto& s : j["suites"]) {
      if (!s.contains("facts") || !s["facts"].contains("case")) continue;
      std::string key = s["facts"]["case"].get<std::string>() + " [" + s["facts"]["backend"].get<std::string>() + "]";
      std::string msg;
      if (s.value("verdict", std::string()) == "skip") msg = "skipped: " + s.value("skip_reason", std::string());
      for (const auto& f : s.value("findings", nlohmann::json::array()))
        msg += f["rule"].get<std::string>() + " " + f["message"].get<std::string>();
      m[key] = msg;
    }
    return m;
  }
};

const char* kRng = "--suite rng_graph --backend cuda";

TEST_F(FakeCudaProbe, RngGraphCasesPassWhenTheFillsAreTorchs) {
  auto r = run("good", kRng);
  auto m = outcomes(r.out);
  ASSERT_EQ(m.size(), 6u) << r.out << r.err;
  for (const auto& [name, msg] : m) {
    EXPECT_NE(name.find("[artifact-cuda]"), std::string::npos) << name;
    EXPECT_EQ(msg, "") << name;
  }
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST_F(FakeCudaProbe, HugeAnswersAreReadWhole) {
  auto r = run("huge", kRng);
  auto m = outcomes(r.out);
  ASSERT_EQ(m.size(), 6u) << r.err;
  for (const auto& [name, msg] : m) EXPECT_EQ(msg, "") << name;
}

TEST_F(FakeCudaProbe, EachBrokenArtifactFailsItsCaseNamingWhatDiffered) {
  struct Want {
    const char* mode;
    const char* failing_case;
    const char* says;
  };
  for (const Want& w : std::vector<Want>{
           {"repeat", "consecutive_replays_differ", "did not advance between replays (offsets 0 and 0)"},
           {"repeat", "offset_advances_by_graph_increment", "replay 1 started at offset 0, expected"},
           {"bad_words", "philox_words_match_reference",
            "replay 0, the float32 uniform fill at offset 0: element 0 (thread 0, loop trip 0, Philox word 0)"},
           {"shared", "two_streams_own_generators", "moved with the other graph's replays"},
           {"lost_state", "graphsafe_state_round_trip",
            "a state saved with clone_state() and set back with graphsafe_set_state() drew different numbers"}}) {
    SCOPED_TRACE(w.mode);
    auto r = run(w.mode, kRng);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    auto m = outcomes(r.out);
    std::string key = std::string(w.failing_case) + " [artifact-cuda]";
    ASSERT_TRUE(m.count(key)) << r.out;
    EXPECT_EQ(m[key].rfind("WS201 ", 0), 0u) << m[key];
    EXPECT_NE(m[key].find(w.says), std::string::npos) << m[key];
  }
  // A broken generator fails only the cases it breaks: words that are wrong but the same in the
  // graph and eagerly still pass replay_equals_eager_at_offset.
  auto m = outcomes(run("bad_words", kRng).out);
  EXPECT_EQ(m["replay_equals_eager_at_offset [artifact-cuda]"], "");
  EXPECT_EQ(m["two_streams_own_generators [artifact-cuda]"].find("WS201 graph 0's replay 0 (step 0 of "), 0u)
      << m["two_streams_own_generators [artifact-cuda]"];
}

TEST_F(FakeCudaProbe, PadAndDtensorGoToTheGpu) {
  // pad_concat on the artifact's GPU: the requests carry device "cuda".
  auto m = outcomes(run("good", "--suite pad_concat --backend cuda --no-compile").out);
  ASSERT_TRUE(m.count("sweep/float32 [artifact-cuda]"));
  EXPECT_NE(m["sweep/float32 [artifact-cuda]"].find("asked pad on cuda"), std::string::npos)
      << m["sweep/float32 [artifact-cuda]"];
  EXPECT_NE(m["sweep/float32 [artifact-cuda]"].find(", eager on cuda)"), std::string::npos);
  // dtensor_view over nccl needs a GPU per rank: one GPU skips every mesh of more ranks, with the count.
  auto one = outcomes(run("good", "--suite dtensor_view --backend cuda").out);
  ASSERT_FALSE(one.empty());
  for (const auto& [name, msg] : one)
    EXPECT_NE(msg.find("skipped: nccl needs a GPU per rank: the mesh has "), std::string::npos) << name << msg;
  // The bench asks for the timing on the GPU (the fake refuses, which ends the bench as exit 2).
  auto b = run_command(
      std::string(WS_BINARY) + " bench --python " +
      shell_quote(testing::fake_interpreter(dir, (std::string(kPhiloxPy) + kFakeCudaProbe).c_str(), "good")));
  EXPECT_EQ(b.exit_code, 2) << b.out << b.err;
  EXPECT_NE(b.out.find("GPU: cuda:Fake GPU"), std::string::npos) << b.out;
  EXPECT_NE(b.err.find("torch raised Fake: asked pad_timing on cuda"), std::string::npos) << b.err;
  // Four GPUs: the cases of up to four ranks go to the probe over nccl.
  auto four = outcomes(run("four_gpus", "--suite dtensor_view --backend cuda").out);
  size_t asked = 0;
  for (const auto& [name, msg] : four) asked += msg.find("asked dtensor on nccl") != std::string::npos;
  EXPECT_GT(asked, 0u);
}

TEST_F(FakeCudaProbe, WithoutCudaTheGpuCasesSkipNamingTheBuild) {
  // A stand-in for a CPU build of torch: torch.version.cuda is None.
  const char* cpu_only =
      "import json, sys\n"
      "for line in sys.stdin:\n"
      "    r = json.loads(line)\n"
      "    print(json.dumps({'id': r['id'], 'ok': True, 'torch': '1', 'cuda': None, 'device': 'cpu'}), flush=True)\n";
  std::string py = testing::fake_interpreter(dir, cpu_only, "cpu_only");
  auto r = run_command(std::string(WS_BINARY) + " run --suite rng_graph --python " + shell_quote(py) +
                       " --format json --require-gpu");
  auto m = outcomes(r.out);
  ASSERT_EQ(m.size(), 6u) << r.out;
  EXPECT_NE(m["replay_equals_eager_at_offset [artifact-cuda]"].find(
                "skipped: the artifact's torch sees no CUDA device (torch.version.cuda None: a CPU build)"),
            std::string::npos);
  EXPECT_EQ(r.exit_code, 1) << "--require-gpu fails without a GPU";
  EXPECT_NE(r.out.find("\"WS001\""), std::string::npos) << r.out;
}

// The probe's own rng_graph code (captures, replays on two streams, graph-safe states, the round
// trip, the answers' shape) run against the mock torch: every case passes, and a mock whose replays
// do not advance the generator fails the cases that judge it.
TEST_F(FakeCudaProbe, TheProbesRngCodeAgainstAMockTorch) {
  const std::string pkg = dir.file("mock/torch");
  ASSERT_EQ(run_command("mkdir -p " + shell_quote(pkg)).exit_code, 0);
  std::ofstream(pkg + "/__init__.py") << kPhiloxPy << kMockTorch;
  for (const std::string mode : {"good", "repeat"}) {
    SCOPED_TRACE(mode);
    std::string py = dir.file("python-mock-" + mode);
    std::ofstream(py) << "#!/bin/sh\nMOCK_TORCH_MODE=" << mode << " PYTHONPATH=" << shell_quote(dir.file("mock"))
                      << " exec python3 \"$@\"\n";
    run_command("chmod +x " + shell_quote(py));
    auto r = run_command(std::string(WS_BINARY) + " run --suite rng_graph --backend cuda --python " + shell_quote(py) +
                         " --case-timeout 120 --format json");
    auto m = outcomes(r.out);
    ASSERT_EQ(m.size(), 6u) << r.out << r.err;
    if (mode == "good") {
      for (const auto& [name, msg] : m) EXPECT_EQ(msg, "") << name;
      EXPECT_EQ(r.exit_code, 0) << r.out;
      EXPECT_NE(r.out.find("\"torch\": \"0.0.0+mockcuda\""), std::string::npos) << r.out;
    } else {
      EXPECT_EQ(r.exit_code, 1) << r.out;
      EXPECT_NE(m["consecutive_replays_differ [artifact-cuda]"].find("did not advance between replays"),
                std::string::npos)
          << m["consecutive_replays_differ [artifact-cuda]"];
      EXPECT_NE(m["graphsafe_state_round_trip [artifact-cuda]"].find(
                    "replay 0 left the states at offsets [0,0], the eager steps at [8,4]"),
                std::string::npos)
          << m["graphsafe_state_round_trip [artifact-cuda]"];
      EXPECT_NE(m["replay_equals_eager_at_offset [artifact-cuda]"].find(
                    "the replay left the generator at offset 0, the eager run at 20"),
                std::string::npos)
          << m["replay_equals_eager_at_offset [artifact-cuda]"];
    }
  }
}

// The layout the judging assumes, on its own: a launch of T threads, thread t's trip k feeding
// elements (k*unroll + i)*T + t from Philox block k of subsequence t; increments in words.
TEST(TorchFill, LaunchAndLayoutFollowATen) {
  EXPECT_EQ(rng::torch_fill_threads(1, 132, 2048), 256u);
  EXPECT_EQ(rng::torch_fill_threads(1000, 132, 2048), 1024u);
  EXPECT_EQ(rng::torch_fill_threads(100000000, 132, 2048), 132u * 8 * 256);
  EXPECT_EQ(rng::torch_fill_threads(100000000, 84, 1536), 84u * 6 * 256);
  EXPECT_EQ(rng::torch_fill_increment(1000, 1024, 4), 4u);
  EXPECT_EQ(rng::torch_fill_increment(4097, 1024, 4), 8u);
  EXPECT_EQ(rng::torch_fill_increment(4097, 1024, 2), 12u);
  const uint64_t seed = 0x0123456789abcdefull, off = 8, T = 256, n = 3 * 4 * T + 5;
  auto f = rng::torch_uniform_f32(seed, off, n, T);
  auto q = rng::torch_random_full64(seed, off, n, T);
  for (uint64_t e : {uint64_t(0), uint64_t(255), uint64_t(256), uint64_t(3 * 256 + 7), uint64_t(4 * 256 + 1), n - 1}) {
    uint64_t t = e % T, trip = (e / T) / 4, word = (e / T) % 4;
    auto words = rng::reference_stream(seed, t, off + 4 * trip, 4);
    float u = philox::uniform(words[word]);
    EXPECT_EQ(f[e], u == 1.0f ? 0.0f : u) << e;
    uint64_t trip2 = (e / T) / 2, half = (e / T) % 2;
    auto w2 = rng::reference_stream(seed, t, off + 4 * trip2, 4);
    EXPECT_EQ(uint64_t(q[e]), (uint64_t(w2[2 * half]) << 32) | w2[2 * half + 1]) << e;
  }
  // curand_uniform's 1.0 (a word of 0xffffff80 or more) is written as 0.0: ATen's [0, 1). Seed 7,
  // subsequence 11, Philox block 49534 has word 3 = 0xffffffbe (found by search): element
  // 3*256 + 11 of a 256-thread fill at offset 4*49534.
  auto w = rng::reference_stream(7, 11, 4 * 49534, 4);
  ASSERT_EQ(w[3], 0xffffffbeu);
  ASSERT_EQ(philox::uniform(w[3]), 1.0f);
  auto edge = rng::torch_uniform_f32(7, 4 * 49534, 1000, 256);
  EXPECT_EQ(edge[3 * 256 + 11], 0.0f);
  EXPECT_EQ(edge[3 * 256 + 10], philox::uniform(rng::reference_stream(7, 10, 4 * 49534, 4)[3]));
}

}  // namespace
}  // namespace wc
