// Fatbin inventory: real fatbins from nvcc (skipped without a CUDA toolkit) must list exactly the
// -gencode targets asked for; synthetic containers (built below, layout per docs/DESIGN.md)
// placed in a gcc-built .nv_fatbin section exercise the CUDA rules on every machine.
#include <gtest/gtest.h>

#include <cstring>
#include <regex>
#include <set>

#include "binary/binary_facts.h"
#include "binary/fatbin.h"
#include "policy/policy.h"
#include "support/fixtures.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using namespace wc::testing;

using testing::run_command;
using testing::shell_quote;

// ---- synthetic fatbins ------------------------------------------------------------------------

// A gcc-built shared object whose .nv_fatbin section holds `containers`, optionally linking a
// CUDA runtime soname through a stub library.
std::string synth_library(const testing::TempDir& dir, const std::vector<std::vector<uint8_t>>& containers,
                          const std::string& link_soname = "") {
  std::vector<uint8_t> all;
  for (const auto& c : containers) {
    all.insert(all.end(), c.begin(), c.end());
    while (all.size() % 8) all.push_back(0);
  }
  testing::write_file(dir.file("fatbin.bin"), all);
  std::string src = "__asm__(\".section .nv_fatbin,\\\"a\\\"\\n.balign 8\\n.incbin \\\"" + dir.file("fatbin.bin") +
                    "\\\"\\n.text\\n\");\nint f(void){return 0;}\n";
  testing::write_file(dir.file("lib.c"), std::vector<uint8_t>(src.begin(), src.end()));
  std::string link;
  if (!link_soname.empty()) {
    run_command("echo 'int cudaStub(void){return 0;}' | gcc -shared -fPIC -x c - -Wl,-soname," + link_soname + " -o " +
                shell_quote(dir.file("libstub.so")));
    link = " -Wl,--no-as-needed " + shell_quote(dir.file("libstub.so"));
  }
  auto r = run_command("gcc -shared -fPIC " + shell_quote(dir.file("lib.c")) + " -o " +
                       shell_quote(dir.file("libgpu.so")) + link);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir.file("libgpu.so");
}

BinaryFacts parse_file(const std::string& path) {
  auto bytes = testing::read_file(path);
  BinaryFacts b;
  parse_binary_image(bytes.data(), bytes.size(), b);
  return b;
}

std::vector<Finding> check_gpu_wheel(const std::string& lib, const std::string& version, const std::string& policy,
                                     const std::vector<std::string>& requires_dist = {}) {
  auto so = testing::read_file(lib);
  testing::WheelBuilder b("gpu-pkg", version, "cp312-cp312-manylinux_2_28_x86_64");
  b.purelib(false).add("gpu_pkg/lib/libgpu.so", std::string(so.begin(), so.end()));
  for (const auto& r : requires_dist) b.requires_dist(r);
  return testing::findings_of(b.build(), b.filename(), policy);
}

TEST(Fatbin, SyntheticInventoryAndSuffixes) {
  testing::TempDir d;
  auto lib = synth_library(d, {synth_container({{2, 80}, {2, 90, 0x100011}, {1, 120, 0x8011, 9, 0}}),
                               synth_container({{2, 100, 0x1200011}})});
  BinaryFacts b = parse_file(lib);
  EXPECT_TRUE(b.errors.empty()) << b.errors.front();
  EXPECT_EQ(b.fatbin.containers, 2u);
  EXPECT_EQ(b.fatbin.sass(), (std::vector<std::string>{"sm_80", "sm_90a", "sm_100f"}));
  EXPECT_EQ(b.fatbin.ptx(), (std::vector<std::string>{"compute_120"}));
  EXPECT_EQ(b.fatbin.entries[2].compression, "zstd");
  EXPECT_EQ(b.fatbin.entries[2].version_major, 9);
}

TEST(Fatbin, CorruptContainerInsideSectionIsWC508) {
  testing::TempDir d;
  auto c = synth_container({{2, 80}, {2, 90}});
  uint64_t payload = 1u << 30;  // second entry claims a payload far past the container
  std::memcpy(c.data() + 16 + 128 + 8, &payload, 8);
  auto lib = synth_library(d, {c});
  BinaryFacts b = parse_file(lib);
  ASSERT_FALSE(b.errors.empty());
  EXPECT_NE(b.errors[0].find("runs past its container"), std::string::npos) << b.errors[0];
  auto fs = check_gpu_wheel(lib, "1.0", "default");
  EXPECT_TRUE(testing::has_rule(fs, "WC508")) << testing::dump(fs);
}

// Sets the size field of the named section of a 64-bit little-endian ELF image.
void set_section_size(std::vector<uint8_t>& elf, const std::string& name, uint64_t size) {
  auto rd = [&](size_t at, size_t n) {
    uint64_t v = 0;
    std::memcpy(&v, elf.data() + at, n);
    return v;
  };
  uint64_t shoff = rd(0x28, 8), shentsize = rd(0x3A, 2), shnum = rd(0x3C, 2), shstrndx = rd(0x3E, 2);
  uint64_t strtab = rd(shoff + shstrndx * shentsize + 0x18, 8);
  for (uint64_t i = 0; i < shnum; ++i) {
    uint64_t sh = shoff + i * shentsize;
    if (std::string(reinterpret_cast<const char*>(elf.data() + strtab + rd(sh, 4))) != name) continue;
    std::memcpy(elf.data() + sh + 0x20, &size, 8);
    return;
  }
  ADD_FAILURE() << "no section " << name;
}

// Declared sizes no binary can have are findings that say so, never silently skipped.
TEST(Fatbin, AbsurdSectionSizeIsWC508) {
  testing::TempDir d;
  auto so = testing::read_file(synth_library(d, {synth_container({{2, 80}})}));
  set_section_size(so, ".nv_fatbin", 1ull << 63);
  testing::write_file(d.file("huge.so"), so);
  auto fs = check_gpu_wheel(d.file("huge.so"), "1.0", "default");
  EXPECT_TRUE(std::any_of(fs.begin(), fs.end(), [](const Finding& f) {
    return f.rule == "WC508" && f.message.find("9223372036854775808") != std::string::npos;
  })) << testing::dump(fs);
}

TEST(Fatbin, AbsurdDecompressedSizeIsWC508) {
  testing::TempDir d;
  auto c = synth_container({{2, 80, 0x8011}});  // zstd-compressed SASS
  uint64_t claimed = 1ull << 63;
  std::memcpy(c.data() + 16 + 56, &claimed, 8);  // the entry's decompressed size
  auto lib = synth_library(d, {c});
  auto fs = check_gpu_wheel(lib, "1.0", "default");
  EXPECT_TRUE(std::any_of(fs.begin(), fs.end(), [](const Finding& f) {
    return f.rule == "WC508" && f.message.find("9223372036854775808") != std::string::npos;
  })) << testing::dump(fs);
}

// LTO-IR entries (kind 8, nvcc -dlto) are skipped, and the PTX and SASS after them still count
// (cudf's shim.fatbin: 7 of its 8 PTX architectures were lost behind one).
TEST(Fatbin, LtoIrEntriesAreSkipped) {
  auto c = synth_container({{8, 70}, {1, 70, 0x11, 8, 5}, {2, 80}, {8, 90}, {1, 120, 0x11, 8, 8}});
  FatbinScanner s;
  s.feed(c.data(), c.size());
  std::vector<std::string> errors;
  auto f = select_fatbins(s, ByteRange{0, c.size()}, errors);
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(f.ptx(), (std::vector<std::string>{"compute_70", "compute_120"}));
  EXPECT_EQ(f.sass(), (std::vector<std::string>{"sm_80"}));
}

TEST(Fatbin, BareFatbinFileInAWheel) {
  auto c = synth_container({{2, 86}, {1, 86, 0x11, 8, 5}});
  testing::WheelBuilder b("kern", "1.0+cu126", "py3-none-manylinux_2_17_x86_64");
  b.purelib(false).add("kern/kernels.fatbin", std::string(c.begin(), c.end()));
  auto f = testing::facts_of(b.build(), b.filename());
  ASSERT_EQ(f.binaries.size(), 1u);
  EXPECT_EQ(f.binaries[0].format, "fatbin");
  EXPECT_EQ(f.binaries[0].fatbin.sass(), std::vector<std::string>{"sm_86"});
  EXPECT_EQ(f.binaries[0].fatbin.ptx(), std::vector<std::string>{"compute_86"});
  auto fs = testing::findings_of(b.build(), b.filename());
  EXPECT_FALSE(testing::has_rule(fs, "WC501")) << testing::dump(fs);  // GPU code, not a host binary
}

TEST(Fatbin, ScannerHandlesAnyChunking) {
  auto c = synth_container({{2, 75}, {1, 75, 0x11, 8, 7}});
  // Every alignment of the magic against every chunk size, with decoys before it: its first byte
  // alone, its last byte alone, and its last three bytes without the first.
  for (size_t lead = 96; lead < 104; ++lead) {
    std::vector<uint8_t> stream(lead, 0xAB);
    stream[lead - 2] = 0x50;
    stream[lead - 5] = 0xBA;
    stream[lead - 9] = 0xED, stream[lead - 8] = 0x55, stream[lead - 7] = 0xBA;
    stream.insert(stream.end(), c.begin(), c.end());
    stream.insert(stream.end(), 37, 0xCD);
    stream.insert(stream.end(), c.begin(), c.end());
    for (size_t chunk : {1u, 2u, 3u, 4u, 5u, 7u, 64u, 4096u}) {
      FatbinScanner s;
      for (size_t i = 0; i < stream.size(); i += chunk) s.feed(stream.data() + i, std::min(chunk, stream.size() - i));
      ASSERT_EQ(s.containers.size(), 2u) << "lead " << lead << " chunk " << chunk;
      EXPECT_EQ(s.containers[0].offset, lead);
      EXPECT_EQ(s.containers[1].offset, lead + c.size() + 37);
      ASSERT_EQ(s.entries.size(), 4u) << chunk;
      EXPECT_EQ(s.entries[1].name(), "compute_75");
    }
  }
}

TEST(CudaRules, VariantAgainstRuntimeAndPins) {
  testing::TempDir d;
  auto lib = synth_library(d, {synth_container({{2, 80}})}, "libcudart.so.13");
  auto fs = check_gpu_wheel(lib, "2.0+cu128", "default", {"nvidia-cudnn-cu12==9.5.1.17", "nvidia-cublas==13.0.0.19"});
  std::string dump = testing::dump(fs);
  EXPECT_NE(dump.find("WC601"), std::string::npos) << dump;  // cu128 links libcudart.so.13
  EXPECT_NE(dump.find("libcudart.so.13"), std::string::npos) << dump;
  EXPECT_NE(dump.find("WC204"), std::string::npos) << dump;              // nvidia-cublas==13 in a CUDA 12 wheel
  EXPECT_EQ(dump.find("nvidia-cudnn-cu12"), std::string::npos) << dump;  // that pin agrees
  auto cpu = check_gpu_wheel(lib, "2.0+cpu", "default");
  EXPECT_TRUE(testing::has_rule(cpu, "WC601")) << testing::dump(cpu);
  auto ok = check_gpu_wheel(synth_library(d, {synth_container({{2, 80}})}, "libcudart.so.12"), "2.0+cu128", "default",
                            {"nvidia-cuda-runtime-cu12==12.8.90"});
  EXPECT_FALSE(testing::has_rule(ok, "WC601")) << testing::dump(ok);
  EXPECT_FALSE(testing::has_rule(ok, "WC204")) << testing::dump(ok);
}

// Windows: the CUDA runtime a .pyd imports (cudart64_13.dll, any case) is the runtime it links.
TEST(CudaRules, WindowsRuntimeDllAgainstTheVariant) {
  auto pe = pe_image_with_fatbin(0x8664, {"CUDART64_13.DLL", "python312.dll", "KERNEL32.dll"},
                                 synth_container({{2, 80}}), 1u << 16);
  auto check = [&](const std::string& version) {
    testing::WheelBuilder b("gpu-pkg", version, "cp312-cp312-win_amd64");
    b.purelib(false).add("gpu_pkg/_ext.cp312-win_amd64.pyd", std::string(pe.begin(), pe.end()));
    return testing::findings_of(b.build(), b.filename());
  };
  auto wrong = check("2.0+cu128");
  EXPECT_TRUE(std::any_of(wrong.begin(), wrong.end(), [](const Finding& f) {
    return f.rule == "WC601" && f.message.find("CUDART64_13.DLL") != std::string::npos;
  })) << testing::dump(wrong);
  EXPECT_FALSE(testing::has_rule(check("2.0+cu130"), "WC601")) << testing::dump(check("2.0+cu130"));
}

TEST(CudaRules, PtxIsaNewerThanTheVariantsToolkit) {
  testing::TempDir d;
  auto lib = synth_library(d, {synth_container({{1, 90, 0x11, 9, 0}})});  // PTX ISA 9.0 = CUDA 13
  auto fs = check_gpu_wheel(lib, "1.0+cu128", "default");
  EXPECT_NE(testing::dump(fs).find("PTX ISA 9.0"), std::string::npos) << testing::dump(fs);
  EXPECT_FALSE(testing::has_rule(check_gpu_wheel(lib, "1.0+cu130", "default"), "WC601"));
}

TEST(CudaRules, ToolkitNoteNewerThanTheVariant) {
  testing::TempDir d;
  SynthEntry cubin{2, 90};
  cubin.payload = 256;
  cubin.text = std::string("nvlink\0Cuda compilation tools, release 12.8, V12.8.93\0", 53);
  auto lib = synth_library(d, {synth_container({cubin})});
  EXPECT_EQ(parse_file(lib).cuda_toolkit, "12.8");
  auto fs = check_gpu_wheel(lib, "1.0+cu126", "default");
  EXPECT_NE(testing::dump(fs).find("built by CUDA 12.8"), std::string::npos) << testing::dump(fs);
  EXPECT_FALSE(testing::has_rule(check_gpu_wheel(lib, "1.0+cu128", "default"), "WC601"));
  EXPECT_FALSE(
      testing::has_rule(check_gpu_wheel(lib, "1.0+cu129", "default"), "WC601"));  // older toolkit, same major: fine
}

TEST(CudaRules, TargetableArchitectures) {
  testing::TempDir d;
  auto lib = synth_library(d, {synth_container({{2, 100}, {2, 50}})});
  auto cu126 = check_gpu_wheel(lib, "1.0+cu126", "default");
  EXPECT_NE(testing::dump(cu126).find("sm_100 is not a target"), std::string::npos) << testing::dump(cu126);
  auto cu130 = check_gpu_wheel(lib, "1.0+cu130", "default");
  EXPECT_NE(testing::dump(cu130).find("sm_50 is not a target"), std::string::npos) << testing::dump(cu130);
  auto cu128 = check_gpu_wheel(lib, "1.0+cu128", "default");
  EXPECT_FALSE(testing::has_rule(cu128, "WC604")) << testing::dump(cu128);
  auto specific = synth_library(d, {synth_container({{2, 90, 0x100011}})});
  testing::write_file(d.file("p.json"), std::vector<uint8_t>{});
  std::string pol = R"({"cuda": {"allow_arch_specific": false}})";
  testing::write_file(d.file("p.json"), std::vector<uint8_t>(pol.begin(), pol.end()));
  auto fs = check_gpu_wheel(specific, "1.0+cu128", d.file("p.json"));
  EXPECT_NE(testing::dump(fs).find("sm_90a is an architecture-specific target"), std::string::npos)
      << testing::dump(fs);
}

TEST(CudaRules, PytorchRequiredArchitectures) {
  testing::TempDir d;
  auto all = synth_library(
      d, {synth_container({{2, 70}, {2, 75}, {2, 80}, {2, 86}, {2, 90}, {2, 100}, {2, 120}, {1, 120, 0x11, 8, 8}})});
  auto fs = check_gpu_wheel(all, "2.9.0+cu129", "pytorch");
  EXPECT_FALSE(testing::has_rule(fs, "WC602")) << testing::dump(fs);
  EXPECT_FALSE(testing::has_rule(fs, "WC603")) << testing::dump(fs);
  auto partial = synth_library(d, {synth_container({{2, 80}, {2, 90}})});
  auto miss = check_gpu_wheel(partial, "2.9.0+cu129", "pytorch");
  std::string dump = testing::dump(miss);
  for (const char* arch : {"sm_70", "sm_75", "sm_86", "sm_100", "sm_120"})
    EXPECT_NE(dump.find(std::string("WC602 [error] : no SASS for ") + arch + " in any binary"), std::string::npos)
        << arch << dump;
  EXPECT_EQ(dump.find("no SASS for sm_80"), std::string::npos) << dump;
  // Releases ship no PTX since 2.13; the nightly policy expects compute_120.
  EXPECT_FALSE(testing::has_rule(miss, "WC603")) << dump;
  auto nightly = testing::dump(check_gpu_wheel(partial, "2.9.0+cu129", "pytorch-nightly"));
  EXPECT_NE(nightly.find("no PTX compute_120 in any binary"), std::string::npos) << nightly;
}

// Coverage is judged per container (one translation unit's kernels): a library whose union has
// sm_75 but most of whose containers lack it cannot run those kernels on a T4.
TEST(CudaRules, CoveragePerContainer) {
  testing::TempDir d;
  auto full = synth_container({{2, 75}, {2, 80}, {2, 86}, {2, 90}, {2, 100}, {2, 120}});
  auto no75 = synth_container({{2, 80}, {2, 86}, {2, 90}, {2, 100}, {2, 120}});
  auto lib = synth_library(d, {full, no75, no75});
  auto fs = check_gpu_wheel(lib, "2.15.0+cu132", "pytorch");
  std::string dump = testing::dump(fs);
  EXPECT_NE(dump.find("WC602 [warning] gpu_pkg/lib/libgpu.so: 2 of 3 fatbin containers carry no SASS for sm_75 (they "
                      "have sm_80 sm_86 sm_90 "
                      "sm_100 sm_120)"),
            std::string::npos)
      << dump;
  EXPECT_FALSE(has_errors(fs)) << dump;
  // Under a policy that wants every container covered, the same bytes fail.
  testing::write_file(d.file("strict.json"), [] {
    std::string t = R"({"extends": "pytorch", "cuda": {"require_scope": "container"}})";
    return std::vector<uint8_t>(t.begin(), t.end());
  }());
  auto strict = check_gpu_wheel(lib, "2.15.0+cu132", d.file("strict.json"));
  EXPECT_NE(testing::dump(strict).find("WC602 [error] gpu_pkg/lib/libgpu.so: 2 of 3"), std::string::npos)
      << testing::dump(strict);
}

TEST(CudaRules, BundledRuntimeUnderPytorchPolicy) {
  testing::WheelBuilder b("torchish", "1.0+cu128", "cp312-cp312-manylinux_2_28_x86_64");
  b.purelib(false).add("torchish/lib/libcudart.so.12", "not really a library");
  auto fs = testing::findings_of(b.build(), b.filename(), "pytorch");
  EXPECT_TRUE(testing::has_rule(fs, "WC605")) << testing::dump(fs);
  EXPECT_FALSE(testing::has_rule(testing::findings_of(b.build(), b.filename(), "default"), "WC605"));
}

TEST(CudaRules, VersionFileDisagreesWithVariant) {
  testing::WheelBuilder b("torch", "2.9.0+cu128", "cp312-cp312-manylinux_2_28_x86_64");
  b.purelib(false).add("torch/version.py", "__version__ = '2.9.0+cu128'\ncuda: Optional[str] = '12.6'\n");
  auto fs = testing::findings_of(b.build(), b.filename(), "pytorch");
  EXPECT_NE(testing::dump(fs).find("the version file says CUDA 12.6"), std::string::npos) << testing::dump(fs);
}

// ---- real fatbins from nvcc -------------------------------------------------------------------

class NvccFatbin : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!WC_HAVE_NVCC) GTEST_SKIP() << "no CUDA toolkit at configure time; nvcc-built fatbins are not tested";
  }
  testing::TempDir dir;
  BinaryFacts build(const std::string& flags) {
    std::string cu = dir.file("k.cu");
    std::string src = "__global__ void k(float* x){ x[threadIdx.x] *= 2.0f; }\n";
    testing::write_file(cu, std::vector<uint8_t>(src.begin(), src.end()));
    std::string out = dir.file("libk.so");
    auto r = run_command(std::string(WC_NVCC) + " -shared -Xcompiler -fPIC " + flags + " " + shell_quote(cu) + " -o " +
                         shell_quote(out));
    EXPECT_EQ(r.exit_code, 0) << flags << "\n" << r.err;
    BinaryFacts b = parse_file(out);
    EXPECT_TRUE(b.errors.empty()) << flags << ": " << (b.errors.empty() ? "" : b.errors[0]);
    // The streaming path must agree with the whole-image parser.
    auto so = testing::read_file(out);
    testing::WheelBuilder w("k", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
    w.purelib(false).add("k/libk.so", std::string(so.begin(), so.end()));
    auto f = testing::facts_of(w.build(), w.filename());
    EXPECT_EQ(f.binaries.size(), 1u);
    if (!f.binaries.empty()) {
      EXPECT_EQ(f.binaries[0].fatbin.sass(), b.fatbin.sass()) << flags;
      EXPECT_EQ(f.binaries[0].fatbin.ptx(), b.fatbin.ptx()) << flags;
    }
    return b;
  }
  static bool nvcc_accepts(const std::string& flag) {
    return run_command(std::string(WC_NVCC) + " --help | grep -q -- " + shell_quote(flag)).exit_code == 0;
  }
};

using V = std::vector<std::string>;

TEST_F(NvccFatbin, SassOnly) {
  auto b = build("-gencode arch=compute_80,code=sm_80");
  EXPECT_EQ(b.fatbin.sass(), V{"sm_80"});
  EXPECT_EQ(b.fatbin.ptx(), V{});
  for (const auto& e : b.fatbin.entries) EXPECT_EQ(e.cubin_sm.value_or(e.sm), e.sm);
}

TEST_F(NvccFatbin, PtxOnly) {
  auto b = build("-gencode arch=compute_90,code=compute_90");
  EXPECT_EQ(b.fatbin.sass(), V{});
  EXPECT_EQ(b.fatbin.ptx(), V{"compute_90"});
}

TEST_F(NvccFatbin, SassAndPtxSeveralArchs) {
  auto b = build(
      "-gencode arch=compute_75,code=sm_75 -gencode arch=compute_86,code=sm_86 -gencode "
      "arch=compute_90,code=[sm_90,compute_90]");
  EXPECT_EQ(b.fatbin.sass(), (V{"sm_75", "sm_86", "sm_90"}));
  EXPECT_EQ(b.fatbin.ptx(), V{"compute_90"});
}

TEST_F(NvccFatbin, ArchAndFamilySpecific) {
  auto b = build("-gencode arch=compute_90a,code=sm_90a -gencode arch=compute_100f,code=sm_100f");
  EXPECT_EQ(b.fatbin.sass(), (V{"sm_90a", "sm_100f"}));
}

TEST_F(NvccFatbin, CompressAll) {
  auto b = build("-gencode arch=compute_80,code=[sm_80,compute_80] -Xfatbin -compress-all");
  EXPECT_EQ(b.fatbin.sass(), V{"sm_80"});
  EXPECT_EQ(b.fatbin.ptx(), V{"compute_80"});
  for (const auto& e : b.fatbin.entries) EXPECT_NE(e.compression, "none") << e.name();
}

TEST_F(NvccFatbin, CompressModes) {
  if (!nvcc_accepts("--compress-mode")) GTEST_SKIP() << "this nvcc has no --compress-mode";
  for (const char* mode : {"default", "size", "speed", "balance", "none"}) {
    auto b = build(std::string("-gencode arch=compute_80,code=[sm_80,compute_80] --compress-mode=") + mode);
    EXPECT_EQ(b.fatbin.sass(), V{"sm_80"}) << mode;
    EXPECT_EQ(b.fatbin.ptx(), V{"compute_80"}) << mode;
    if (std::string(mode) == "none") {
      for (const auto& e : b.fatbin.entries) EXPECT_EQ(e.compression, "none") << e.name();
    }
  }
}

TEST_F(NvccFatbin, StandaloneCubinAndFatbinFiles) {
  std::string cu = dir.file("k.cu");
  std::string src = "__global__ void k(float* x){ x[threadIdx.x] *= 2.0f; }\n";
  testing::write_file(cu, std::vector<uint8_t>(src.begin(), src.end()));
  ASSERT_EQ(run_command(std::string(WC_NVCC) + " -cubin -arch=sm_86 " + shell_quote(cu) + " -o " +
                        shell_quote(dir.file("k.cubin")))
                .exit_code,
            0);
  ASSERT_EQ(
      run_command(std::string(WC_NVCC) +
                  " -fatbin -gencode arch=compute_75,code=[sm_75,compute_75] -gencode arch=compute_90,code=sm_90 " +
                  shell_quote(cu) + " -o " + shell_quote(dir.file("k.fatbin")))
          .exit_code,
      0);
  BinaryFacts cubin = parse_file(dir.file("k.cubin"));
  EXPECT_EQ(cubin.arch, "cuda");
  EXPECT_EQ(cubin.fatbin.sass(), V{"sm_86"});
  BinaryFacts fatbin = parse_file(dir.file("k.fatbin"));
  EXPECT_EQ(fatbin.format, "fatbin");
  EXPECT_TRUE(fatbin.errors.empty()) << fatbin.errors.front();
  EXPECT_EQ(fatbin.fatbin.sass(), (V{"sm_75", "sm_90"}));
  EXPECT_EQ(fatbin.fatbin.ptx(), V{"compute_75"});
}

TEST_F(NvccFatbin, ToolkitReleaseFromTheCubins) {
  auto b = build("-gencode arch=compute_80,code=sm_80 --compress-mode=none");
  std::smatch m;
  std::string v = run_command(std::string(WC_NVCC) + " --version").out;
  ASSERT_TRUE(std::regex_search(v, m, std::regex("release ([0-9]+\\.[0-9]+)")));
  EXPECT_EQ(b.cuda_toolkit, m[1].str());
}

TEST_F(NvccFatbin, PtxIsaOfTheInstalledToolkit) {
  auto b = build("-gencode arch=compute_80,code=compute_80");
  ASSERT_EQ(b.fatbin.entries.size(), 1u);
  auto v = run_command(std::string(WC_NVCC) + " --version").out;
  // CUDA 13.x emits PTX ISA 9.x, 12.8 emits 8.7 (docs/DESIGN.md, "NVIDIA fatbin layout").
  if (v.find("release 13.0") != std::string::npos) {
    EXPECT_EQ(b.fatbin.entries[0].version_major, 9);
  } else if (v.find("release 12.8") != std::string::npos) {
    EXPECT_EQ(b.fatbin.entries[0].version_minor, 7);
  }
}

}  // namespace
}  // namespace wc
