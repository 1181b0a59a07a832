// wheelsmoke: offline compatibility verdicts, the RNG suite's checks on the CPU backend (and on
// CUDA where a GPU exists), and the CLI's exit codes and formats.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "binary/binary_facts.h"
#include "philox.h"
#include "policy/policy.h"
#include "rng_graph/backend.h"
#include "rng_graph/checks.h"
#include "smoke/device/compat.h"
#include "smoke/device/gpu_catalog.h"
#include "smoke/smoke_rules.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using namespace wc::smoke;

FatbinEntry entry(FatbinEntry::Kind k, uint32_t sm, std::string suffix = "", uint16_t isa_major = 8,
                  uint16_t isa_minor = 0) {
  FatbinEntry e;
  e.kind = k;
  e.sm = sm;
  e.suffix = std::move(suffix);
  e.version_major = isa_major;
  e.version_minor = isa_minor;
  return e;
}

Target target(int ma, int mi, std::optional<std::string> driver = std::nullopt) { return Target{"t", ma, mi, driver}; }

TEST(GpuCatalog, NamesAndVersions) {
  EXPECT_EQ(gpu_compute_capability("H100"), std::make_pair(9, 0));
  EXPECT_EQ(gpu_compute_capability("rtx5090"), std::make_pair(12, 0));
  EXPECT_EQ(gpu_compute_capability("t4"), std::make_pair(7, 5));
  EXPECT_FALSE(gpu_compute_capability("Voodoo2"));
  EXPECT_EQ(parse_sm("sm_90"), std::make_pair(9, 0));
  EXPECT_EQ(parse_sm("sm_100a"), std::make_pair(10, 0));
  EXPECT_EQ(parse_sm("8.6"), std::make_pair(8, 6));
  EXPECT_FALSE(parse_sm("hopper"));
  EXPECT_EQ(driver_cuda_version("550.54.14"), "12.4");
  EXPECT_EQ(driver_cuda_version("535.104.05"), "12.2");
  EXPECT_EQ(driver_cuda_version("580.65.06"), "13.0");
  EXPECT_EQ(driver_cuda_version("570.26"), "12.8");
  EXPECT_FALSE(driver_cuda_version("470.82.01"));
  EXPECT_FALSE(driver_cuda_version("latest"));
  EXPECT_EQ(ptx_isa_min_cuda("8.7"), "12.8");
  EXPECT_EQ(ptx_isa_min_cuda("9.0"), "13.0");
  EXPECT_EQ(cudart_major("libcudart.so.12"), 12);
  EXPECT_FALSE(cudart_major("libcublas.so.12"));
}

TEST(GpuCatalog, SassAndPtxRules) {
  EXPECT_TRUE(sass_runs_on(entry(FatbinEntry::sass, 80), target(8, 6)));   // same major, newer minor
  EXPECT_FALSE(sass_runs_on(entry(FatbinEntry::sass, 86), target(8, 0)));  // older minor
  EXPECT_FALSE(sass_runs_on(entry(FatbinEntry::sass, 80), target(9, 0)));  // other major
  EXPECT_TRUE(sass_runs_on(entry(FatbinEntry::sass, 90, "a"), target(9, 0)));
  EXPECT_FALSE(sass_runs_on(entry(FatbinEntry::sass, 100, "a"), target(10, 3)));  // 'a' = exactly that CC
  EXPECT_TRUE(sass_runs_on(entry(FatbinEntry::sass, 100, "f"), target(10, 3)));   // 'f' = the family
  EXPECT_FALSE(sass_runs_on(entry(FatbinEntry::sass, 100, "f"), target(12, 0)));
  EXPECT_TRUE(ptx_targets(entry(FatbinEntry::ptx, 80), target(12, 0)));
  EXPECT_FALSE(ptx_targets(entry(FatbinEntry::ptx, 90), target(8, 9)));
  EXPECT_FALSE(ptx_targets(entry(FatbinEntry::sass, 80), target(8, 0)));
}

std::vector<Finding> compat_of(const std::vector<FatbinEntry>& entries, const Target& t,
                               std::vector<std::string> needed = {}, std::string toolkit = "") {
  WheelFacts f;
  BinaryFacts b;
  b.path = "pkg/lib.so";
  b.format = "elf";
  b.needed = std::move(needed);
  b.cuda_toolkit = std::move(toolkit);
  b.fatbin.entries = entries;
  b.fatbin.containers = 1;
  f.binaries.push_back(b);
  static Policy p;
  FindingSink s(p, smoke::smoke_rules());
  compat_findings(f, t, s);
  return s.take();
}

// Judged per container: one of three carrying sm_75 does not make the library run on a T4; a
// container whose only cubin has no kernels (nvcc's empty module) needs no image anywhere.
TEST(Compat, CoveragePerContainer) {
  using K = FatbinEntry;
  auto in = [](FatbinEntry e, size_t c) {
    e.container = c;
    return e;
  };
  auto empty_module = in(entry(K::sass, 80), 3);
  empty_module.has_kernels = false;
  auto fs = compat_of({in(entry(K::sass, 75), 0), in(entry(K::sass, 80), 0), in(entry(K::sass, 80), 1),
                       in(entry(K::sass, 90), 1), in(entry(K::sass, 80), 2), empty_module},
                      target(7, 5, "580.65.06"));
  ASSERT_EQ(fs.size(), 1u) << testing::dump(fs);
  EXPECT_EQ(fs[0].rule, "WS101");
  EXPECT_NE(
      fs[0].message.find("2 of 3 fatbin containers cannot run on t (compute capability 7.5) (they carry sm_80 sm_90;"),
      std::string::npos)
      << fs[0].message;
  EXPECT_TRUE(compat_of({in(entry(K::sass, 80), 0), empty_module}, target(8, 0, "580.65.06")).empty());
}

TEST(Compat, OfflineVerdicts) {
  using K = FatbinEntry;
  // An A10 runs sm_80 SASS.
  EXPECT_TRUE(compat_of({entry(K::sass, 80)}, target(8, 6, "550.54.14")).empty());
  // An H100 with only sm_80 SASS and compute_80 PTX: JIT only (warning).
  auto jit = compat_of({entry(K::sass, 80), entry(K::ptx, 80, "", 8, 4)}, target(9, 0, "550.54.14"));
  ASSERT_EQ(jit.size(), 1u) << testing::dump(jit);
  EXPECT_EQ(jit[0].rule, "WS105");
  EXPECT_EQ(jit[0].severity, Severity::warning);
  // PTX ISA 8.7 (CUDA 12.8) on a 12.4 driver: error 222 at load.
  auto isa = compat_of({entry(K::sass, 80), entry(K::ptx, 80, "", 8, 7)}, target(9, 0, "550.54.14"));
  ASSERT_EQ(isa.size(), 1u) << testing::dump(isa);
  EXPECT_EQ(isa[0].rule, "WS102");
  EXPECT_NE(isa[0].message.find("CUDA 12.8 driver"), std::string::npos) << isa[0].message;
  // The same wheel with a 570 driver JITs fine.
  EXPECT_EQ(compat_of({entry(K::sass, 80), entry(K::ptx, 80, "", 8, 7)}, target(9, 0, "570.86.10"))[0].rule, "WS105");
  // Nothing for a T4.
  auto none = compat_of({entry(K::sass, 80), entry(K::sass, 90)}, target(7, 5));
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].rule, "WS101");
  EXPECT_EQ(none[0].entry, "pkg/lib.so");
  // Arch-specific code only on its exact GPU.
  EXPECT_TRUE(compat_of({entry(K::sass, 90, "a")}, target(9, 0)).empty());
  EXPECT_EQ(compat_of({entry(K::sass, 100, "a")}, target(10, 3))[0].rule, "WS101");
  // The CUDA 13 runtime on a 550 driver.
  auto rt = compat_of({entry(K::sass, 90)}, target(9, 0, "550.54.14"), {"libcudart.so.13"});
  ASSERT_EQ(rt.size(), 1u);
  EXPECT_EQ(rt[0].rule, "WS103");
  EXPECT_TRUE(compat_of({entry(K::sass, 90)}, target(9, 0, "550.54.14"), {"libcudart.so.12"}).empty());
  // Built by CUDA 13 with no shared libcudart: the static runtime needs the 580 driver too.
  auto st = compat_of({entry(K::sass, 90)}, target(9, 0, "550.54.14"), {}, "13.0");
  ASSERT_EQ(st.size(), 1u) << testing::dump(st);
  EXPECT_EQ(st[0].rule, "WS103");
  EXPECT_TRUE(compat_of({entry(K::sass, 90)}, target(9, 0, "580.82.07"), {}, "13.0").empty());
}

// ---- RNG suite checks -----------------------------------------------------------------------------

TEST(RngChecks, PhiloxOnCpu) {
  EXPECT_EQ(rng::check_known_answers(), "");
  EXPECT_EQ(rng::check_offset_law(), "");
  EXPECT_EQ(rng::check_subsequence_and_carries(), "");
  EXPECT_EQ(rng::check_uniform_mapping(), "");
  EXPECT_EQ(rng::check_increment_rounding(), "");
}

TEST(RngChecks, GeneratorStateMachineOnCpuBackend) {
  auto be = rng::make_cpu_backend();
  EXPECT_EQ(rng::check_replay_equals_eager(*be), "");
  EXPECT_EQ(rng::check_consecutive_replays_differ(*be), "");
  EXPECT_EQ(rng::check_reseed_identical_replays(*be), "");
  EXPECT_EQ(rng::check_graph_without_rng(*be), "");
  EXPECT_EQ(rng::check_seed_change_during_capture(*be), "");
  EXPECT_EQ(rng::check_concurrent_captures(*be), "");
}

// The concurrency check must catch the old bug (one intragraph counter shared by every capture).
TEST(RngChecks, ConcurrencyCheckCatchesSharedCounterBug) {
  auto be = rng::make_cpu_backend();
  std::string r = rng::check_concurrent_captures(*be, /*buggy=*/true);
  EXPECT_NE(r, "");
  EXPECT_NE(r.find("concurrent captures vs sequential"), std::string::npos) << r;
}

TEST(RngChecks, MatchesAnIndependentPythonPhilox) {
  // Random123's reference formula, written independently in Python, over a curand-style mapping.
  std::string py = R"PY(
M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
def philox(c, k):
    c = list(c); k = list(k)
    for r in range(10):
        if r: k = [(k[0] + W0) & 0xffffffff, (k[1] + W1) & 0xffffffff]
        p0, p1 = M0 * c[0], M1 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & 0xffffffff, (p0 >> 32) ^ c[3] ^ k[1], p0 & 0xffffffff]
    return c
def stream(seed, sub, off, n):
    ctr = (sub << 64) + off // 4; idx = off % 4; out = []
    while len(out) < n:
        c = [(ctr >> (32 * i)) & 0xffffffff for i in range(4)]
        o = philox(c, [seed & 0xffffffff, seed >> 32])
        out += o[idx:]; idx = 0; ctr = (ctr + 1) % (1 << 128)
    return out[:n]
print(" ".join("%08x" % w for w in stream(0x123456789abcdef0, 0xfffffffff, 4 * 0xffffffff + 3, 12)))
)PY";
  testing::TempDir d;
  testing::write_file(d.file("p.py"), std::vector<uint8_t>(py.begin(), py.end()));
  auto r = testing::run_command("python3 " + testing::shell_quote(d.file("p.py")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      rng::hex_words(rng::reference_stream(0x123456789abcdef0ull, 0xfffffffffull, 4 * 0xffffffffull + 3, 12)) + "\n",
      r.out);
}

class CudaRng : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    be_ = rng::make_cuda_backend(&why);
    if (!be_) GTEST_SKIP() << why;
  }
  std::unique_ptr<rng::Backend> be_;
};

TEST_F(CudaRng, DeviceStreamsMatchCpuAndCurand) {
  std::string why;
  for (auto [seed, sub, off] :
       {std::tuple<uint64_t, uint64_t, uint64_t>{0, 0, 0}, {42, 7, 5}, {1, 0xffffffffull, 4 * 0xffffffffull + 2}}) {
    auto ref = rng::reference_stream(seed, sub, off, 300);
    EXPECT_EQ(rng::compare_words(rng::device_philox_stream(seed, sub, off, 300, &why), ref, "device"), "");
    EXPECT_EQ(rng::compare_words(rng::device_curand_stream(seed, sub, off, 300, &why), ref, "curand"), "");
  }
}

TEST_F(CudaRng, GraphStateMachine) {
  EXPECT_EQ(rng::check_replay_equals_eager(*be_), "");
  EXPECT_EQ(rng::check_consecutive_replays_differ(*be_), "");
  EXPECT_EQ(rng::check_reseed_identical_replays(*be_), "");
  EXPECT_EQ(rng::check_graph_without_rng(*be_), "");
  EXPECT_EQ(rng::check_seed_change_during_capture(*be_), "");
  EXPECT_EQ(rng::check_concurrent_captures(*be_), "");
}

// ---- CLI --------------------------------------------------------------------------------------------

testing::RunResult smoke(const std::vector<std::string>& args) {
  std::string cmd = "env -u GITHUB_STEP_SUMMARY NO_COLOR=1 " + testing::shell_quote(WS_BINARY);
  for (const auto& a : args) cmd += " " + testing::shell_quote(a);
  return testing::run_command(cmd);
}

bool machine_has_gpu() { return smoke({"probe", "--require-gpu"}).exit_code == 0; }

TEST(SmokeCli, ProbeWithoutGpuReportsCleanly) {
  auto r = smoke({"probe", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tool"], "wheelsmoke");
  if (j["devices"].empty()) {
    EXPECT_TRUE(j.contains("why"));
    EXPECT_EQ(smoke({"probe", "--require-gpu"}).exit_code, 1);
  }
}

TEST(SmokeCli, RunCpuSuiteAndCasesFile) {
  testing::TempDir d;
  auto good = R"({"suite": "rng_graph", "cases": [{"name": "kat", "seed": 0, "subsequence": 0, "offset": 0,
                   "expect": ["6627e8d5", "e169c58d", "bc57ac4c", "9b00dbd8"]},
                  {"seed": "0xffffffffffffffff", "subsequence": 3, "offset": 6, "expect": ["%s"]}]})";
  std::string ref = rng::hex_words(rng::reference_stream(0xffffffffffffffffull, 3, 6, 1));
  std::string text(good);
  text.replace(text.find("%s"), 2, ref);
  testing::write_file(d.file("good.json"), std::vector<uint8_t>(text.begin(), text.end()));
  auto r = smoke({"run", "--backend", "cpu", "--cases", d.file("good.json"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tool"], "wheelsmoke");
  EXPECT_GE(j["suites"].size(), 13u);
  EXPECT_EQ(j["summary"]["failed"], 0);

  std::string bad = R"({"suite": "rng_graph", "cases": [{"seed": 0, "expect": ["6627e8d6"]}]})";
  testing::write_file(d.file("bad.json"), std::vector<uint8_t>(bad.begin(), bad.end()));
  auto b = smoke({"run", "--backend", "cpu", "--cases", d.file("bad.json")});
  EXPECT_EQ(b.exit_code, 1);
  // wheelsmoke's JUnit and SARIF, passing and failing, against junit-10.xsd and SARIF 2.1.0.
  for (const char* cases : {"good.json", "bad.json"})
    smoke({"run", "--backend", "cpu", "--cases", d.file(cases), "--report",
           "junit:" + d.file(std::string(cases) + ".xml"), "--report",
           "sarif:" + d.file(std::string(cases) + ".sarif")});
  bool unavailable = false;
  std::string complaints = testing::schema_complaints(
      {d.file("good.json.xml"), d.file("good.json.sarif"), d.file("bad.json.xml"), d.file("bad.json.sarif")},
      &unavailable);
  if (!unavailable) {
    EXPECT_EQ(complaints, "") << "wheelsmoke's reports against junit-10.xsd and SARIF 2.1.0";
  }
  EXPECT_NE(b.out.find("WS201"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("[0] 6627e8d5 != 6627e8d6"), std::string::npos) << b.out;

  std::string broken = R"({"suite": "rng_graph", "cases": [{"seed": -1, "expect": ["x"]}]})";
  testing::write_file(d.file("broken.json"), std::vector<uint8_t>(broken.begin(), broken.end()));
  auto e = smoke({"run", "--cases", d.file("broken.json")});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_NE(e.err.find(d.file("broken.json") + ": /cases/0/seed"), std::string::npos) << e.err;
  EXPECT_EQ(smoke({"run", "--suite", "nope"}).exit_code, 2);
  EXPECT_EQ(smoke({"run", "--backend", "tpu"}).exit_code, 2);
}

TEST(SmokeCli, RequireGpuTurnsASkipIntoAFailure) {
  if (machine_has_gpu()) GTEST_SKIP() << "this machine has a GPU; the no-GPU path is not reachable";
  auto r = smoke({"run", "--require-gpu"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("WS001"), std::string::npos) << r.out;
  EXPECT_EQ(smoke({"run"}).exit_code, 0);
}

TEST(SmokeCli, RngPrintsTheReferenceStream) {
  auto r = smoke({"rng", "--seed", "42", "--subsequence", "3", "--offset", "5", "--count", "10"});
  ASSERT_EQ(r.exit_code, 0);
  auto ref = rng::reference_stream(42, 3, 5, 10);
  std::string want =
      rng::hex_words({ref.begin(), ref.begin() + 8}) + "\n" + rng::hex_words({ref.begin() + 8, ref.end()}) + "\n";
  EXPECT_EQ(r.out, want);
}

TEST(SmokeCli, CompatOfflineOnAnNvccWheel) {
  if (!WC_HAVE_NVCC) GTEST_SKIP() << "no CUDA toolkit: nvcc-built wheels are not tested";
  testing::TempDir d;
  std::string src = "__global__ void k(float* x){ x[threadIdx.x] += 1.0f; }\n";
  testing::write_file(d.file("k.cu"), std::vector<uint8_t>(src.begin(), src.end()));
  auto c = testing::run_command(
      std::string(WC_NVCC) + " -shared -Xcompiler -fPIC -gencode arch=compute_80,code=[sm_80,compute_80] " +
      testing::shell_quote(d.file("k.cu")) + " -o " + testing::shell_quote(d.file("libk.so")));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  auto so = testing::read_file(d.file("libk.so"));
  testing::WheelBuilder w("k", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  w.purelib(false).add("k/libk.so", std::string(so.begin(), so.end()));
  std::string whl = w.write(d.path());
  EXPECT_EQ(smoke({"compat", whl, "--gpu", "A100"}).exit_code, 0);
  auto h = smoke({"compat", whl, "--gpu", "H100", "--format", "json"});
  EXPECT_EQ(h.exit_code, 0);  // JIT from compute_80 is a warning
  auto j = nlohmann::json::parse(h.out);
  EXPECT_EQ(j["artifacts"][0]["findings"][0]["rule"], "WS105");
  EXPECT_EQ(j["artifacts"][0]["facts"]["gpu_binaries"][0]["sass"][0], "sm_80");
  auto t4 = smoke({"compat", whl, "--gpu", "T4"});
  EXPECT_EQ(t4.exit_code, 1);
  EXPECT_NE(t4.out.find("WS101"), std::string::npos);
  EXPECT_EQ(smoke({"compat", whl, "--gpu", "Voodoo2"}).exit_code, 2);
  EXPECT_EQ(smoke({"compat", whl, "--target", "sm_90", "--driver", "banana"}).exit_code, 2);
}

}  // namespace
}  // namespace wc
