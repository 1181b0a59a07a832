// wheelsmoke's artifact mode (issue 17): the probe protocol and the judging, against a scripted fake
// probe (wrong bytes, a crash, a stall, garbage, no torch), so the default run needs no PyTorch; and,
// with WHEELCHECK_TORCH_PYTHON (make test-torch), the pad_concat suite through real PyTorch and
// through an artifact whose F.pad a sitecustomize.py breaks.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "util/strings.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::run_command;
using testing::shell_quote;

// A fake interpreter: ignores the probe script it is given and speaks the protocol as MODE says.
const char* kFakeProbe = R"PY(
import base64, json, sys, time
mode = sys.argv[1]
for line in sys.stdin:
    req = json.loads(line)
    rid = req.get("id")
    if req["op"] == "hello":
        if mode == "no_torch":
            print(json.dumps({"id": rid, "ok": False, "error_type": "ModuleNotFoundError", "message": "No module named 'torch'"}), flush=True)
        else:
            print(json.dumps({"id": rid, "ok": True, "torch": "9.9.9-fake", "cuda": None, "device": "cpu", "python": "fake"}), flush=True)
        continue
    if mode == "crash":
        sys.stderr.write("Segmentation fault in the fake artifact\n")
        sys.exit(139)
    if mode == "stall":
        time.sleep(3600)
    if mode == "garbage":
        print("this is not json", flush=True)
        continue
    # "wrong_bytes": answers with the input, unpadded (a pad that writes nothing).
    print(json.dumps({"id": rid, "ok": True, "out": {"dtype": req["dtype"], "shape": req["shape"], "strides": [], "data": req["data"]}}), flush=True)
)PY";

class FakeProbe : public ::testing::Test {
 protected:
  testing::TempDir dir;
  std::string interpreter(const std::string& mode) { return testing::fake_interpreter(dir, kFakeProbe, mode); }
  nlohmann::json run(const std::string& mode, int* exit_code) {
    auto r = run_command(std::string(WS_BINARY) + " run --suite pad_concat --python " + shell_quote(interpreter(mode)) +
                         " --case-timeout 2 --format json");
    *exit_code = r.exit_code;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
    return j;
  }
  static std::string all_messages(const nlohmann::json& j) {
    std::string m;
    for (const auto& s : j["suites"])
      for (const auto& f : s.value("findings", nlohmann::json::array()))
        m += f["rule"].get<std::string>() + " " + f["message"].get<std::string>() + "\n";
    return m;
  }
};

TEST_F(FakeProbe, WrongBytesFailTheCaseNamingIt) {
  int rc = 0;
  auto j = run("wrong_bytes", &rc);
  EXPECT_EQ(rc, 1);
  std::string m = all_messages(j);
  EXPECT_NE(m.find("WS201 right_pad_last_dim: F.pad's output (float32 "), std::string::npos) << m;
  EXPECT_NE(m.find("eager on cpu): shape"), std::string::npos) << m;
  // The report names the artifact.
  EXPECT_EQ(j["suites"][0]["facts"]["artifact"]["torch"], "9.9.9-fake") << j.dump();
}

TEST_F(FakeProbe, CrashStallGarbageAndNoTorchAreFindingsNamingTheInterpreter) {
  for (const auto& [mode, says] : std::vector<std::pair<std::string, std::string>>{
           {"crash",
            "exited with status 139 before answering (its last words: Segmentation fault in the fake artifact)"},
           {"stall", "gave no answer within 2 s (killed"},
           {"garbage", "printed something that is not the protocol: 'this is not json'"},
           {"no_torch", "has no usable torch: ModuleNotFoundError: No module named 'torch'"}}) {
    SCOPED_TRACE(mode);
    int rc = 0;
    auto j = run(mode, &rc);
    EXPECT_EQ(rc, 1);
    std::string m = all_messages(j);
    EXPECT_NE(m.find("WS203"), std::string::npos) << m;
    EXPECT_NE(m.find(says), std::string::npos) << m;
    EXPECT_NE(m.find(dir.file("python-" + mode)), std::string::npos) << m;  // names the interpreter
  }
  // A missing interpreter is the same finding, not a crash.
  auto r = run_command(std::string(WS_BINARY) + " run --suite pad_concat --python /nonexistent/python --format json");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("WS203"), std::string::npos) << r.out;
}

// --wheel: a fresh venv, the wheel installed by pip (no index needed for a wheel without
// dependencies), the suites through it. The wheel here is a stand-in "torch" whose pad is missing:
// the install and the probe work, the cases fail naming what torch raised (it has no torch.nn).
TEST(ArtifactWheel, InstallsIntoAFreshVenvAndRunsThere) {
  testing::TempDir dir;
  testing::WheelBuilder w("torch", "0.0.1");
  w.add("torch/__init__.py",
        "__version__ = '0.0.1+standin'\n"
        "class version: cuda = None\n"
        "class cuda:\n    @staticmethod\n    def is_available(): return False\n");
  std::string file = w.write(dir.path());
  auto r = run_command(std::string(WS_BINARY) + " run --suite pad_concat --no-compile --wheel " + shell_quote(file) +
                       " --find-links " + shell_quote(dir.path()) + " --format json");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  ASSERT_GE(j["suites"].size(), 3u) << r.out;
  EXPECT_EQ(j["suites"][0]["verdict"], "pass") << j["suites"][0].dump();  // installed
  EXPECT_EQ(j["suites"][1]["facts"]["artifact"]["torch"], "0.0.1+standin") << j["suites"][1].dump();
  EXPECT_NE(r.out.find("torch raised ModuleNotFoundError: No module named 'torch.nn'"), std::string::npos) << r.out;
  EXPECT_EQ(r.exit_code, 1);
  // A wheel pip cannot install (a dependency nowhere to be found) is a finding, not a crash.
  testing::WheelBuilder bad("torch", "0.0.2");
  bad.add("torch/__init__.py", "").requires_dist("no-such-project-wheelsmoke==1");
  std::string bad_file = bad.write(dir.path());
  auto b = run_command(std::string(WS_BINARY) + " run --suite pad_concat --wheel " + shell_quote(bad_file) +
                       " --index http://127.0.0.1:9/simple --format json");
  EXPECT_EQ(b.exit_code, 1) << b.out << b.err;
  EXPECT_NE(b.out.find("WS203"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("pip could not install"), std::string::npos) << b.out;
}

// Real PyTorch (make test-torch): WHEELCHECK_TORCH_PYTHON names its interpreter; without it the
// tests skip.
class ArtifactTorch : public ::testing::Test {
 protected:
  std::string py;
  // Inductor's and Triton's caches of this test alone: tests run side by side would otherwise
  // share /tmp/torchinductor_$USER, and a test must not pass on another one's compiled kernels.
  testing::TempDir caches;
  void SetUp() override {
    const char* p = std::getenv("WHEELCHECK_TORCH_PYTHON");
    if (!p || !*p) GTEST_SKIP() << "set WHEELCHECK_TORCH_PYTHON to a python with torch (make test-torch does)";
    py = p;
  }
  // wheelsmoke ARGS --python PY (after `env`, assignments for its environment).
  testing::RunResult ws(const std::string& args, const std::string& env = "") {
    return run_command("TORCHINDUCTOR_CACHE_DIR=" + shell_quote(caches.file("inductor")) +
                       " TRITON_CACHE_DIR=" + shell_quote(caches.file("triton")) + " " + env + std::string(WS_BINARY) +
                       " " + args + " --python " + shell_quote(py));
  }
  // wheelsmoke run ARGS through PY with a sitecustomize.py that breaks the artifact (every process
  // the probe starts, ranks included, imports it).
  testing::RunResult run_broken(const std::string& site, const std::string& args) {
    testing::TempDir dir;
    testing::write_file(dir.file("sitecustomize.py"), std::vector<uint8_t>(site.begin(), site.end()));
    return ws("run " + args, "PYTHONPATH=" + shell_quote(dir.path()) + " ");
  }
};

// Every pad_concat case passes through the pinned torch, and an
// artifact whose F.pad writes a wrong fill fails with the case named.
TEST_F(ArtifactTorch, PadConcatThroughRealPyTorchAndABrokenOne) {
  auto ok = ws("run --suite pad_concat");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("PASS  pad_concat/compiled/bfloat16 [artifact]"), std::string::npos) << ok.out;
  const std::string site =
      "import torch.nn.functional as F\n"
      "_pad = F.pad\n"
      "def pad(x, p, mode='constant', value=None):\n"
      "    return _pad(x, p, mode=mode, value=(value or 0) + 1)\n"
      "F.pad = pad\n";
  auto bad = run_broken(site, "--suite pad_concat --no-compile");
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
  EXPECT_NE(bad.out.find("FAIL  pad_concat/sweep/float32 [artifact]"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("right_pad_last_dim: F.pad's output (float32"), std::string::npos) << bad.out;
}

TEST_F(ArtifactTorch, DtensorViewOverGlooAndBrokenArtifacts) {
  // dtensor_view through real DTensors (gloo, a process per rank); and an artifact whose view
  // sharding rule a sitecustomize.py breaks (outputs claimed Replicate) fails naming the case.
  auto dt = ws("run --suite dtensor_view");
  EXPECT_EQ(dt.exit_code, 0) << dt.out << dt.err;
  EXPECT_NE(dt.out.find("PASS  dtensor_view/sweep [artifact]"), std::string::npos) << dt.out;
  EXPECT_NE(dt.out.find("PASS  dtensor_view/builtin/transpose_moves_shard [artifact]"), std::string::npos) << dt.out;
  // A collective that corrupts what it gathers: the placements stay right, and the gathered
  // output catches it.
  const std::string corrupt =
      "import torch.distributed._functional_collectives as f\n"
      "_orig = f.all_gather_single\n"
      "def gather(*a, **k):\n"
      "    return _orig(*a, **k) + 1\n"
      "f.all_gather_single = gather\n";
  auto g = run_broken(corrupt, "--suite dtensor_view");
  EXPECT_EQ(g.exit_code, 1) << g.out;
  EXPECT_NE(g.out.find("the output gathered by full_tensor() differs from the global view"), std::string::npos)
      << g.out;
  const std::string broken =
      "import torch.distributed.tensor._ops._view_ops as v\n"
      "from torch.distributed.tensor import Replicate\n"
      "_orig = v.propagate_shape_and_sharding\n"
      "def broken(*a, **k):\n"
      "    tgt, out = _orig(*a, **k)\n"
      "    return tgt, [Replicate() if p.is_shard() else p for p in out]\n"
      "v.propagate_shape_and_sharding = broken\n";
  auto dbad = run_broken(broken, "--suite dtensor_view");
  EXPECT_EQ(dbad.exit_code, 1) << dbad.out;
  EXPECT_NE(dbad.out.find("FAIL  dtensor_view/builtin/transpose_moves_shard [artifact]"), std::string::npos)
      << dbad.out;
  EXPECT_NE(dbad.out.find("the artifact's output placements [R], the model's [S(1)]"), std::string::npos) << dbad.out;
}

// A --cases file's expectations are part of the test through the artifact too: a wrong
// expect_shape, "expect": "error" for a legal pad, a wrong checksum, wrong placements, an error
// expected where both propagate, a wrong gather count: each case fails naming what it expected and
// what the artifact and the reference (or model) did; the right ones pass.
TEST_F(ArtifactTorch, CaseFileExpectationsHoldThroughTheArtifact) {
  testing::TempDir dir;
  const std::string pad_cases = R"({"suite": "pad_concat", "cases": [
    {"name": "right", "shape": [2, 3], "dtype": "float32", "pad": [0, 2], "value": 1.5, "expect_shape": [2, 5]},
    {"name": "wrong_shape", "shape": [2, 3], "dtype": "float32", "pad": [0, 2], "value": 0, "expect_shape": [2, 6]},
    {"name": "wrong_error", "shape": [2, 3], "dtype": "float32", "pad": [1, 1], "value": 0, "expect": "error"},
    {"name": "wrong_checksum", "shape": [4], "dtype": "int32", "pad": [1, 0], "value": 7, "checksum": 12345}]})";
  testing::write_file(dir.file("pad.json"), std::vector<uint8_t>(pad_cases.begin(), pad_cases.end()));
  auto pad = ws("run --suite pad_concat --no-compile --cases " + shell_quote(dir.file("pad.json")));
  EXPECT_EQ(pad.exit_code, 1) << pad.out << pad.err;
  EXPECT_NE(pad.out.find("PASS  pad_concat/case/right [artifact]"), std::string::npos) << pad.out;
  for (const char* says :
       {"output shape [2,5] (the artifact's and the reference's), the case expects [2,6]",
        "the case expects PyTorch to refuse this pad, but the artifact pads it, as the reference does",
        ", the case expects 12345"})
    EXPECT_NE(pad.out.find(says), std::string::npos) << says << "\n" << pad.out;
  const std::string view_cases = R"J({"suite": "dtensor_view", "cases": [
    {"name": "right", "shape": [8, 4], "mesh": [2], "placements": ["S(0)"], "op": "transpose", "args": [0, 1],
     "expect": ["S(1)"]},
    {"name": "wrong_placements", "shape": [8, 4], "mesh": [2], "placements": ["S(0)"], "op": "transpose",
     "args": [0, 1], "expect": ["S(0)"]},
    {"name": "wrong_error", "shape": [8, 4], "mesh": [2], "placements": ["S(0)"], "op": "view", "args": [32],
     "expect": "error"},
    {"name": "wrong_gathers", "shape": [8, 4], "mesh": [2], "placements": ["S(0)"], "op": "transpose",
     "args": [0, 1], "expect": ["S(1)"], "expect_gathers": 1}]})J";
  testing::write_file(dir.file("view.json"), std::vector<uint8_t>(view_cases.begin(), view_cases.end()));
  auto view = ws("run --suite dtensor_view --cases " + shell_quote(dir.file("view.json")));
  EXPECT_EQ(view.exit_code, 1) << view.out << view.err;
  EXPECT_NE(view.out.find("PASS  dtensor_view/case/right [artifact]"), std::string::npos) << view.out;
  for (const char* says : {"the case expects [S(0)], but the artifact and the model both give [S(1)]",
                           "the case expects the op to raise, but the artifact and the model both propagate to",
                           "the case expects 1 mesh dim(s) gathered; the model gathers 0"})
    EXPECT_NE(view.out.find(says), std::string::npos) << says << "\n" << view.out;
}

// rng_graph and the bench through the real torch: on a GPU runner every rng_graph case must pass
// (CUDA graphs with per-capture generators, words against the reference); without one each is
// skipped naming torch.version.cuda. The bench times eager against compiled, on the GPU if any.
TEST_F(ArtifactTorch, RngGraphAndBenchOnWhateverDeviceThereIs) {
  auto r = ws("run --suite rng_graph --format json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  const bool gpu = j["suites"][0]["facts"]["artifact"]["device"].get<std::string>().rfind("cuda:", 0) == 0;
  size_t cases = 0;
  for (const auto& s : j["suites"]) {
    if (!s["facts"].contains("case")) continue;
    ++cases;
    if (gpu)
      EXPECT_EQ(s["verdict"], "pass") << s.dump();
    else
      EXPECT_NE(s.value("skip_reason", std::string()).find("the artifact's torch sees no CUDA device"),
                std::string::npos)
          << s.dump();
  }
  EXPECT_EQ(cases, 6u) << r.out;
  auto b = ws("bench --format json");
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  auto bj = nlohmann::json::parse(b.out, nullptr, false);
  ASSERT_FALSE(bj.is_discarded()) << b.out;
  EXPECT_EQ(bj["artifact_pad"]["device"], gpu ? "cuda" : "cpu") << b.out;
  EXPECT_EQ(bj["artifact_pad"].contains("cuda_skipped"), !gpu) << b.out;
  ASSERT_GE(bj["artifact_pad"]["rows"].size(), 2u) << b.out;
  for (const auto& row : bj["artifact_pad"]["rows"]) {
    EXPECT_GT(row["eager_ms"].get<double>(), 0) << row.dump();
    EXPECT_GT(row["compiled_ms"].get<double>(), 0) << row.dump();
    // Read x, write the producer (as large) and the output padded by 24 columns of 1024.
    const double in = row["input_bytes"].get<double>();
    EXPECT_EQ(row["bytes_moved"].get<double>(), 2 * in + in / 1024 * (1024 + 24)) << row.dump();
  }
}

// wheelsmoke import of the pinned torch where it is installed: every CUDA library it loads at
// `import torch` (no GPU needed) comes from its nvidia-* wheels, and what the process loaded agrees
// with wheelcheck's prediction. The torch wheel itself (import reads its RECORD) is
// WHEELCHECK_TORCH_WHEEL, or downloaded once (--no-deps) into ~/.cache/wheelcheck-torch/wheels.
std::string torch_wheel(const std::string& py) {
  if (const char* w = std::getenv("WHEELCHECK_TORCH_WHEEL"); w && *w) return w;
  std::string dir = std::string(std::getenv("HOME") ? std::getenv("HOME") : "/tmp") + "/.cache/wheelcheck-torch/wheels";
  std::filesystem::create_directories(dir);
  auto v = run_command(shell_quote(py) + " -c 'import torch; print(torch.__version__)'");
  std::string version(std::string(trim(v.out)));
  auto d = run_command("flock " + shell_quote(dir + ".lock") + " " + shell_quote(py) +
                       " -m pip download -q --disable-pip-version-check --no-deps -d " + shell_quote(dir) +
                       " torch==" + shell_quote(version));
  if (d.exit_code != 0) return "";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.rfind("torch-" + version + "-", 0) == 0 && name.ends_with(".whl")) return e.path().string();
  }
  return "";
}

TEST_F(ArtifactTorch, ImportLoadsEveryCudaLibraryFromItsWheels) {
  std::string wheel = torch_wheel(py);
  if (wheel.empty()) GTEST_SKIP() << "no torch wheel file (set WHEELCHECK_TORCH_WHEEL; PyPI unreachable?)";
  auto r = ws("import --format json " + shell_quote(wheel));
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_EQ(r.exit_code, 0) << j.dump(1).substr(0, 6000);
  const auto& cuda = j["artifacts"][0]["facts"]["cuda_libraries_loaded"];
  ASSERT_TRUE(cuda.contains("libcudart.so.13")) << cuda.dump(1);
  for (const auto& [soname, from] : cuda.items())
    for (const auto& f : from) EXPECT_EQ(f.get<std::string>().rfind("nvidia-", 0), 0u) << soname << ": " << f;
  EXPECT_EQ(j.dump().find("WS304"), std::string::npos) << j.dump(1).substr(0, 6000);

  // A stand-in libcudart.so.13 first on LD_LIBRARY_PATH: wheelsmoke's verdict must equal what a
  // plain `import torch` under the same environment really maps (the loader is the oracle). torch
  // 2.15.0 loads its CUDA libraries by path through cuda-bindings before anything asks by soname,
  // so there the stand-in stays out; where it gets in, WS302 must name it.
  std::string site(
      trim(run_command(shell_quote(py) + " -c 'import sysconfig; print(sysconfig.get_paths()[\"platlib\"])'").out));
  std::string real = cuda["libcudart.so.13"][0].get<std::string>();
  std::string rel = real.substr(real.find('(') + 1, real.size() - real.find('(') - 2);
  testing::TempDir stand;
  std::filesystem::copy_file(site + "/" + rel, stand.file("libcudart.so.13"));
  std::string env = "LD_LIBRARY_PATH=" + shell_quote(stand.path()) + " ";
  auto oracle = run_command(env + shell_quote(py) + " -W ignore -c 'import torch; print(any(\"" + stand.path() +
                            "/\" in l for l in open(\"/proc/self/maps\")))'");
  ASSERT_EQ(oracle.exit_code, 0) << oracle.err;
  bool stand_in_loaded = std::string(trim(oracle.out)) == "True";
  auto s = ws("import --format json " + shell_quote(wheel), env);
  auto sj = nlohmann::json::parse(s.out, nullptr, false);
  ASSERT_FALSE(sj.is_discarded()) << s.out << s.err;
  bool flagged = sj.dump().find("WS302") != std::string::npos &&
                 sj.dump().find(stand.path() + "/libcudart.so.13") != std::string::npos;
  EXPECT_EQ(flagged, stand_in_loaded) << "the process " << (stand_in_loaded ? "loaded" : "did not load")
                                      << " the stand-in\n"
                                      << sj.dump(1).substr(0, 6000);
  EXPECT_EQ(s.exit_code, stand_in_loaded ? 1 : 0);
}

}  // namespace
}  // namespace wc
