// Wheel variants (PEP 825, issue 18): file names with a label, variant.json in each published schema
// generation, the providers' catalogues, declarations proved against nvcc-built fatbins, release
// consistency and the index file, and the NVIDIA provider's choice.
#include <gtest/gtest.h>

#include "pipeline/check.h"
#include "smoke/device/compat.h"
#include "support/test_support.h"
#include "wheel/filename.h"
#include "wheel/requirement.h"
#include "wheel/variant.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::has_rule;
using testing::run_command;
using testing::shell_quote;
using testing::WheelBuilder;

using testing::says;

TEST(VariantFilename, LabelsAndBuildTagsApart) {
  auto a = parse_wheel_filename("torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.8.whl");
  ASSERT_TRUE(a.valid) << a.error;
  EXPECT_EQ(a.variant_label, "cuda12.8");
  EXPECT_FALSE(a.build);
  EXPECT_EQ(a.python_tags, std::vector<std::string>{"cp313"});
  auto b = parse_wheel_filename("torch-2.10.0-1-cp313-cp313-manylinux_2_28_x86_64-null.whl");
  ASSERT_TRUE(b.valid) << b.error;
  EXPECT_EQ(b.variant_label, "null");
  ASSERT_TRUE(b.build);
  EXPECT_EQ(b.build->number, "1");
  auto c = parse_wheel_filename("pkg-1.0-1-py3-none-any.whl");  // six parts, a digit: a build tag
  ASSERT_TRUE(c.valid);
  EXPECT_FALSE(c.variant_label);
  auto d = parse_wheel_filename("pkg-1.0-py3-none-any-CUDA.whl");
  EXPECT_FALSE(d.valid);
  EXPECT_NE(d.error.find("does not match ^[0-9a-z_.]+$"), std::string::npos) << d.error;
  auto e = parse_wheel_filename("pkg-1.0-_x-py3-none-any.whl");  // neither a letter nor a digit: a bad build tag
  EXPECT_FALSE(e.valid);
  EXPECT_NE(e.error.find("build tag"), std::string::npos) << e.error;
}

// Python's packaging and pip (which do not know variants) refuse both shapes, as PEP 825 relies on.
TEST(VariantFilename, TodaysInstallersRefuseThem) {
  std::string py = testing::python_with_packaging();
  if (py.empty()) GTEST_SKIP() << "no python3 with packaging";
  auto r = run_command(
      py +
      " -c \"from packaging.utils import parse_wheel_filename as p\n"
      "for n in ['t-1.0-cp313-cp313-linux_x86_64-cu128.whl','t-1.0-1-cp313-cp313-linux_x86_64-cu128.whl']:\n"
      "  try: p(n); print('accepted')\n"
      "  except Exception: print('refused')\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "refused\nrefused\n");
}

const char* kV003 = R"({
  "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
  "default-priorities": {"namespace": ["nvidia", "priority"]},
  "providers": {
    "nvidia": {"enable-if": "platform_system == 'Linux'", "plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin",
               "requires": ["nvidia-variant-provider>=0.0.2,<1.0.0"]},
    "priority": {"install-time": false, "requires": []}
  },
  "static-properties": {"priority": {"order": ["1", "2"]}},
  "variants": {"LABEL": {"nvidia": {"cuda_version_lower_bound": ["LOWER"], "sm_arch": [SM]}, "priority": {"order": ["1"]}}}
})";

std::string v003(const std::string& label, const std::string& lower, const std::string& sm) {
  std::string t = kV003;
  t.replace(t.find("LABEL"), 5, label);
  t.replace(t.find("LOWER"), 5, lower);
  t.replace(t.find("SM"), 2, sm);
  return t;
}

TEST(VariantDocument, EachPublishedGeneration) {
  auto prod = parse_variant_document(v003("cuda12.8", "12.0", "\"80_real\", \"90_real\""));
  EXPECT_EQ(prod.schema, VariantSchema::v0_0_3);
  EXPECT_TRUE(prod.errors.empty()) << prod.errors.front();
  EXPECT_EQ(prod.static_properties["priority"]["order"], (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(variant_property_strings(prod.variants["cuda12.8"]),
            (std::vector<std::string>{"nvidia :: cuda_version_lower_bound :: 12.0", "nvidia :: sm_arch :: 80_real",
                                      "nvidia :: sm_arch :: 90_real", "priority :: order :: 1"}));
  ASSERT_EQ(prod.warnings.size(), 1u);  // a 0.x draft: a warning, so PyTorch's files pass
  EXPECT_NE(prod.warnings[0].find("0.x draft"), std::string::npos);

  // PyTorch 2.8's generation: the unversioned URL, providers with enable-if.
  auto old = parse_variant_document(R"({"$schema": "https://variants-schema.wheelnext.dev/",
    "default-priorities": {"namespace": ["nvidia"]},
    "providers": {"nvidia": {"enable-if": "platform_system == 'Linux'", "plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin",
                             "requires": ["nvidia-variant-provider>=0.0.1,<1.0.0"]}},
    "variants": {"cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["100_real", "75_real"]}}}})");
  EXPECT_EQ(old.schema, VariantSchema::wheelnext);
  EXPECT_TRUE(old.errors.empty()) << old.errors.front();

  // PEP 825 0.1.1: no providers, only the namespace priority, sorted value lists.
  auto pep = parse_variant_document(R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
    "default-priorities": {"namespace": ["x86_64"], "feature": {"x86_64": ["level"]}},
    "providers": {"x86_64": {"requires": ["provider-variant-x86-64"]}},
    "variants": {"x86_64_v3": {"x86_64": {"level": ["v3", "v2"]}}}})");
  EXPECT_EQ(pep.schema, VariantSchema::pep825_0_1_1);
  std::string all;
  for (const auto& e : pep.errors) all += e + "\n";
  EXPECT_NE(all.find("default-priorities.feature was removed by schema 0.1.1"), std::string::npos) << all;
  EXPECT_NE(all.find("'providers' is not part of schema 0.1.1"), std::string::npos) << all;
  EXPECT_NE(all.find("values are not sorted"), std::string::npos) << all;

  // Providers 0.2.0: enable-if removed, static properties inside the provider.
  auto p020 = parse_variant_document(R"({"$schema": "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json",
    "default-priorities": {"namespace": ["nvidia", "priority"]},
    "providers": {"nvidia": {"requires": ["nvidia-variant-provider"], "enable-if": "True"},
                  "priority": {"static-properties": {"order": ["1", "2"]}}},
    "variants": {"a": {"nvidia": {"sm_arch": ["90_real"]}}}})");
  EXPECT_EQ(p020.schema, VariantSchema::providers_0_2_0);
  ASSERT_FALSE(p020.errors.empty());
  EXPECT_NE(p020.errors[0].find("'enable-if' is not part of schema 0.2.0 (removed by 0.2.0)"), std::string::npos)
      << p020.errors[0];
  EXPECT_EQ(p020.static_properties["priority"]["order"], (std::vector<std::string>{"1", "2"}));

  auto unknown = parse_variant_document(R"({"$schema": "https://variants-schema.wheelnext.dev/v1.0.0.json",
    "default-priorities": {"namespace": ["a"]}, "variants": {}})");
  ASSERT_FALSE(unknown.errors.empty());
  EXPECT_NE(unknown.errors[0].find("of major version 1"), std::string::npos) << unknown.errors[0];
  EXPECT_FALSE(parse_variant_document("{not json").errors.empty());
  auto dup = parse_variant_document(R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.2.json",
    "default-priorities": {"namespace": ["nvidia"]}, "providers": {"nvidia": {"requires": ["x"]}},
    "variants": {"a": {"nvidia": {"sm_arch": ["90_real", "90_real"]}, "amd": {"gfx_arch": []}}}})");
  std::string d;
  for (const auto& e : dup.errors) d += e + "\n";
  EXPECT_NE(d.find("'90_real' appears twice"), std::string::npos) << d;
  EXPECT_NE(d.find("namespace 'amd' is not in default-priorities.namespace"), std::string::npos) << d;
  EXPECT_NE(d.find("variants.a.amd.gfx_arch has no value"), std::string::npos) << d;
}

// The NVIDIA provider's rules (nvidia-variant-provider): only the highest compute capability
// counts, X.Y accepts X{Y..0}_real and X0_virtual; the lower bound nearest the driver first.
TEST(VariantProvider, NvidiaSupportedValues) {
  auto v = nvidia_supported_values("8.6", "12.8");
  EXPECT_EQ(v["sm_arch"], (std::vector<std::string>{"86_real", "85_real", "84_real", "83_real", "82_real", "81_real",
                                                    "80_real", "80_virtual"}));
  EXPECT_EQ(v["cuda_version_lower_bound"].front(), "12.8");
  EXPECT_EQ(v["cuda_version_lower_bound"][8], "12.0");
  EXPECT_EQ(v["cuda_version_lower_bound"].back(), "11");
  EXPECT_EQ(v["cuda_version_upper_bound"].front(), "15.20");
  EXPECT_EQ(v["cuda_version_upper_bound"].back(), "12.9");
  EXPECT_TRUE(nvidia_supported_values("9.0", "10.2").empty());  // a driver outside 11.0 to 15.20: nothing
}

class VariantWheels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!WC_HAVE_NVCC)
      GTEST_SKIP() << "no CUDA toolkit at configure time; the nvcc-built variant wheels are not tested";
  }
  testing::TempDir dir;
  // With `-cudart none` the kernel registration calls (__cudaRegisterFunction, ...) would bind
  // nothing and the loader would refuse the library (WC514): no-op definitions stand in for the
  // runtime, which keeps the library free of any runtime's soname.
  std::string so(const std::string& flags) {
    std::string cu = dir.file("k.cu"), stub = dir.file("stub.c"), out = dir.file("libk.so");
    std::string src = "__global__ void k(float* x){ x[threadIdx.x] *= 2.0f; }\n", runtime;
    for (const char* f : {"__cudaGetKernel", "__cudaInitModule", "__cudaLaunchKernel", "__cudaPopCallConfiguration",
                          "__cudaPushCallConfiguration", "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd",
                          "__cudaRegisterFunction", "__cudaUnregisterFatBinary", "cudaLaunchKernel"})
      runtime += std::string("void* ") + f + "(void) { return 0; }\n";
    testing::write_file(cu, std::vector<uint8_t>(src.begin(), src.end()));
    testing::write_file(stub, std::vector<uint8_t>(runtime.begin(), runtime.end()));
    auto r = run_command(std::string(WC_NVCC) + " -shared -Xcompiler -fPIC -cudart none " + flags + " " +
                         shell_quote(cu) + " " + shell_quote(stub) + " -o " + shell_quote(out));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto b = testing::read_file(out);
    return std::string(b.begin(), b.end());
  }
  WheelBuilder wheel(const std::string& label, const std::string& variant_json, const std::string& lib) {
    WheelBuilder w("gpukit", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
    w.filename("gpukit-1.0-cp312-cp312-manylinux_2_28_x86_64-" + label + ".whl");
    w.purelib(false).add("gpukit/libk.so", lib).add(w.dist_info() + "/variant.json", variant_json);
    return w;
  }
  std::vector<Finding> check(const WheelBuilder& w) { return testing::findings_of(w.build(), w.filename()); }
};

TEST_F(VariantWheels, TrueDeclarationsPassFalseOnesFail) {
  std::string lib = so("-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90");
  auto ok = check(wheel("gpu", v003("gpu", "12.0", "\"80_real\", \"90_real\""), lib));
  EXPECT_FALSE(has_errors(ok)) << testing::dump(ok);
  EXPECT_TRUE(says(ok, "WC802 [warning]")) << testing::dump(ok);  // the draft schema

  auto lies = check(wheel("gpu", v003("gpu", "12.0", "\"80_real\", \"90_real\", \"100_real\""), lib));
  EXPECT_TRUE(
      says(lies, "'nvidia :: sm_arch :: 100_real' is declared but 1 of 1 GPU binaries carry no SASS for sm_100"))
      << testing::dump(lies);

  auto virt = check(wheel("gpu", v003("gpu", "12.0", "\"80_real\", \"90_virtual\""), lib));
  EXPECT_TRUE(
      says(virt, "'nvidia :: sm_arch :: 90_virtual' is declared but 1 of 1 GPU binaries carry no PTX for compute_90"))
      << testing::dump(virt);

  // sm_90 SASS no declared value selects: a warning.
  auto unselected = check(wheel("gpu", v003("gpu", "12.0", "\"80_real\""), lib));
  EXPECT_TRUE(says(unselected, "WC805 [warning]")) << testing::dump(unselected);
  EXPECT_TRUE(says(unselected, "sm_90 SASS in 1 binary")) << testing::dump(unselected);

  // Outside the catalogue, several lower bounds, a virtual value the provider never offers.
  auto cat =
      check(wheel("gpu", v003("gpu", "12.0\", \"12.8", "\"80_real\", \"90_real\", \"130_real\", \"91_virtual\""), lib));
  EXPECT_TRUE(says(cat, "'nvidia :: sm_arch :: 130_real' is outside the provider's values")) << testing::dump(cat);
  EXPECT_TRUE(says(cat, "'nvidia :: cuda_version_lower_bound' takes one value; the variant gives 2"))
      << testing::dump(cat);
  EXPECT_TRUE(says(cat,
                   "WC803 [warning] gpukit-1.0.dist-info/variant.json: 'nvidia :: sm_arch :: 91_virtual' is a value "
                   "the provider never offers"))
      << testing::dump(cat);
}

TEST_F(VariantWheels, ArchSpecificSassAndPtxIsa) {
  std::string a = so("-gencode arch=compute_90a,code=sm_90a");
  auto fs = check(wheel("gpu", v003("gpu", "12.0", "\"90_real\""), a));
  EXPECT_TRUE(says(fs, "WC804 [warning]")) << testing::dump(fs);
  EXPECT_TRUE(says(fs, "backed only by sm_90a SASS")) << testing::dump(fs);

  // PTX from this toolkit needs a driver of its CUDA release to JIT; a lower bound of 11.0 admits
  // drivers that cannot.
  std::string ptx = so("-gencode arch=compute_80,code=compute_80");
  auto jit = check(wheel("gpu", v003("gpu", "11.0", "\"80_virtual\""), ptx));
  EXPECT_TRUE(says(jit, "admits drivers that cannot JIT PTX ISA")) << testing::dump(jit);
}

TEST_F(VariantWheels, LabelAndDeclarationAgree) {
  std::string lib = so("-gencode arch=compute_80,code=sm_80");
  WheelBuilder none("gpukit", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  none.filename("gpukit-1.0-cp312-cp312-manylinux_2_28_x86_64-gpu.whl");
  none.purelib(false).add("gpukit/libk.so", lib);
  EXPECT_TRUE(says(check(none), "has the variant label 'gpu' but the wheel has no")) << testing::dump(check(none));

  auto other = check(wheel("gpu2", v003("gpu", "12.0", "\"80_real\""), lib));
  EXPECT_TRUE(says(other, "'variants' must hold exactly the file name's label 'gpu2'; it holds gpu"))
      << testing::dump(other);

  WheelBuilder plain("gpukit", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  plain.purelib(false)
      .add("gpukit/libk.so", lib)
      .add(plain.dist_info() + "/variant.json", v003("gpu", "12.0", "\"80_real\""));
  EXPECT_TRUE(says(check(plain), "the file name has no variant label")) << testing::dump(check(plain));

  auto long_label = check(wheel("cuda12.8_sm80_sm90_x", v003("cuda12.8_sm80_sm90_x", "12.0", "\"80_real\""), lib));
  EXPECT_TRUE(says(long_label, "is 20 characters")) << testing::dump(long_label);

  // Pins of another CUDA major than the declared lower bound.
  WheelBuilder pinned = wheel("gpu", v003("gpu", "12.0", "\"80_real\""), lib);
  pinned.requires_dist("nvidia-cublas-cu13==13.0.0");
  auto p = check(pinned);
  EXPECT_TRUE(says(p, "'nvidia :: cuda_version_lower_bound :: 12.0' names CUDA 12, but Requires-Dist"))
      << testing::dump(p);
}

TEST_F(VariantWheels, ReleaseConsistencyAndTheIndexFile) {
  std::string lib = so("-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90");
  WheelBuilder a = wheel("gpu", v003("gpu", "12.0", "\"80_real\", \"90_real\""), lib);
  WheelBuilder b("gpukit", "1.0", "cp313-cp313-manylinux_2_28_x86_64");
  b.filename("gpukit-1.0-cp313-cp313-manylinux_2_28_x86_64-gpu.whl");
  b.purelib(false).add("gpukit/libk.so", lib).add(b.dist_info() + "/variant.json", v003("gpu", "12.0", "\"80_real\""));
  testing::TempDir d;
  a.write(d.path());
  b.write(d.path());
  std::string index = v003("gpu", "12.0", "\"80_real\", \"90_real\"");
  index.replace(index.find("\"variants\": {"), 13, "\"variants\": {\"null\": {}, ");
  testing::write_file(d.file("gpukit-1.0-variants.json"), std::vector<uint8_t>(index.begin(), index.end()));
  auto r = testing::run_wheelcheck({"check", "--format", "json", d.path()});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  std::string set = j["set"].dump();
  EXPECT_NE(set.find("variant label 'gpu' declares"), std::string::npos) << set;  // two property sets
  EXPECT_NE(set.find("gives 'gpu'"), std::string::npos) << set;                   // index vs the cp313 wheel
  EXPECT_NE(set.find("lists the label 'null' that no wheel in the run uses"), std::string::npos) << set;
  EXPECT_NE(set.find("WC806"), std::string::npos) << set;
}

}  // namespace
}  // namespace wc

namespace wc {
namespace {

// The installer's choice (wheelsmoke compat): PyTorch 2.10's variants, as its index file declares
// them (CUDA lower bound, sm_arch, and the static "priority" namespace that ranks them).
std::string torch_like(const std::string& label, const std::string& lower, const std::string& sm,
                       const std::string& order) {
  std::string t = R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["nvidia", "priority"]},
    "providers": {"nvidia": {"requires": ["nvidia-variant-provider"]}, "priority": {"install-time": false, "requires": []}},
    "static-properties": {"priority": {"order": ["1", "2", "3"]}},
    "variants": {"L": {"nvidia": {"cuda_version_lower_bound": ["LB"], "sm_arch": [SM]}, "priority": {"order": ["O"]}}}})";
  t.replace(t.find("\"L\""), 3, "\"" + label + "\"");
  t.replace(t.find("LB"), 2, lower);
  t.replace(t.find("SM"), 2, sm);
  t.replace(t.find("\"O\""), 3, "\"" + order + "\"");
  return t;
}

std::vector<smoke::VariantCandidate> torch_release() {
  std::vector<smoke::VariantCandidate> out;
  auto add = [&](const std::string& label, std::optional<std::string> doc) {
    std::string file = "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64" + (label.empty() ? "" : "-" + label) + ".whl";
    out.push_back({file, parse_wheel_filename(file), doc ? std::optional(parse_variant_document(*doc)) : std::nullopt});
  };
  add("cuda12.6",
      torch_like("cuda12.6", "12.0", R"("50_real","60_real","70_real","75_real","80_real","86_real","90_real")", "3"));
  add("cuda12.8", torch_like("cuda12.8", "12.0",
                             R"("70_real","75_real","80_real","86_real","90_real","100_real","120_real")", "2"));
  add("cuda13.0", torch_like("cuda13.0", "13.0",
                             R"("75_real","80_real","86_real","90_real","100_real","120_real","120_virtual")", "1"));
  add("null",
      R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json", "default-priorities": {"namespace": ["nvidia", "priority"]},
    "providers": {"nvidia": {"requires": ["nvidia-variant-provider"]}, "priority": {"install-time": false, "requires": []}},
    "static-properties": {"priority": {"order": ["1", "2", "3"]}}, "variants": {"null": {}}})");
  add("", std::nullopt);
  return out;
}

TEST(VariantSelection, TheInstallersChoice) {
  auto release = torch_release();
  auto pick = [&](int major, int minor, std::optional<std::string> driver) {
    auto s = smoke::select_variants(release, smoke::Target{"gpu", major, minor, driver});
    EXPECT_EQ(s.size(), 1u);
    return s.empty() ? smoke::VariantSelection{} : s.front();
  };
  // CC 8.6, a CUDA 12.8 driver: 12.6 and 12.8 tie on nvidia; the priority namespace prefers 12.8.
  auto a = pick(8, 6, "570.26");
  EXPECT_EQ(a.selected, "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.8.whl");
  ASSERT_EQ(a.order.size(), 4u);
  EXPECT_EQ(a.order[1], "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.6.whl");
  EXPECT_EQ(a.order[2], "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-null.whl");
  EXPECT_EQ(a.order[3], "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64.whl");  // no label: after every variant
  ASSERT_EQ(a.incompatible.size(), 1u);                                         // cuda13.0 needs a CUDA 13 driver
  // A CUDA 13 driver and a Blackwell GPU: 13.0's bound is the nearest, and only it and 12.8 run 12.0.
  EXPECT_EQ(pick(12, 0, "580.65.06").selected, "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda13.0.whl");
  // A Pascal GPU (6.1): only cuda12.6 carries 60_real.
  EXPECT_EQ(pick(6, 1, "580.65.06").selected, "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.6.whl");
  // No driver: the NVIDIA provider reports nothing, so the null variant (CPU) wins.
  EXPECT_EQ(pick(9, 0, std::nullopt).selected, "torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-null.whl");
}

}  // namespace
}  // namespace wc

namespace wc {
namespace {

TEST(VariantMarkers, EvaluateAgainstTheWheelsDeclaration) {
  auto cuda = parse_wheel_filename("torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.8.whl");
  auto null = parse_wheel_filename("torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-null.whl");
  auto plain = parse_wheel_filename("torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64.whl");
  MarkerEnvironment c = environment_for(cuda), n = environment_for(null), p = environment_for(plain);
  add_variant_environment(c, {"nvidia :: cuda_version_lower_bound :: 12.0", "nvidia :: sm_arch :: 90_real"});
  add_variant_environment(n, {});
  auto req = [](const std::string& line) { return *parse_requirement(line); };
  auto triton = req("triton==3.6.0; platform_system == 'Linux' and 'nvidia' in variant_namespaces");
  EXPECT_EQ(evaluate(triton, c), Truth::yes);
  EXPECT_EQ(evaluate(triton, n), Truth::no);
  EXPECT_EQ(evaluate(triton, p), Truth::no);  // no label: no properties at all
  EXPECT_EQ(evaluate(req("x; variant_label == 'cuda13.0'"), c), Truth::no);
  EXPECT_EQ(evaluate(req("x; variant_label == ''"), p), Truth::yes);
  EXPECT_EQ(evaluate(req("x; 'nvidia::sm_arch ::90_real' in variant_properties"), c), Truth::yes);  // whitespace
  EXPECT_EQ(evaluate(req("x; 'nvidia :: sm_arch' not in variant_features"), c), Truth::no);
  // A variant wheel whose declaration is not known: its sets are unknown, its label is not.
  MarkerEnvironment bare = environment_for(cuda);
  EXPECT_EQ(evaluate(triton, bare), Truth::unknown);
  EXPECT_EQ(evaluate(req("x; variant_label == 'cuda12.8'"), bare), Truth::yes);
  auto lits = variant_marker_literals(req("x; variant_label == 'cuda13.0' or 'amd::gfx_arch' in variant_features"));
  EXPECT_EQ(lits.size(), 2u);
}

TEST(VariantSelection, WheelsmokeCompatNamesTheWheel) {
  testing::TempDir d;
  for (const auto& [label, lower, sm] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"cuda12.8", "12.0", "\"80_real\",\"86_real\""}, {"cuda13.0", "13.0", "\"80_real\",\"86_real\""}}) {
    WheelBuilder w("kit", "1.0", "py3-none-manylinux_2_28_x86_64");
    w.filename("kit-1.0-py3-none-manylinux_2_28_x86_64-" + label + ".whl");
    w.purelib(false)
        .add("kit/__init__.py", "")
        .add(w.dist_info() + "/variant.json", torch_like(label, lower, sm, label == "cuda13.0" ? "1" : "2"));
    w.write(d.path());
  }
  auto r = run_command(std::string(WS_BINARY) + " compat " + shell_quote(d.path()) +
                       " --target sm_86 --driver 570.26 --format json");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["variant_selection"].size(), 1u) << r.out;
  EXPECT_EQ(j["variant_selection"][0]["selected_wheel"], "kit-1.0-py3-none-manylinux_2_28_x86_64-cuda12.8.whl");
  EXPECT_EQ(j["variant_selection"][0]["incompatible"][0], "kit-1.0-py3-none-manylinux_2_28_x86_64-cuda13.0.whl");
  auto t =
      run_command(std::string(WS_BINARY) + " compat " + shell_quote(d.path()) + " --target sm_86 --driver 580.65.06");
  EXPECT_NE(t.out.find("installer picks for kit 1.0 (py3-none-manylinux_2_28_x86_64): "
                       "kit-1.0-py3-none-manylinux_2_28_x86_64-cuda13.0.whl"),
            std::string::npos)
      << t.out;
}

}  // namespace
}  // namespace wc

#include <zlib.h>
#include <zstd.h>

namespace wc {
namespace {

// An offload bundle as clang-offload-bundler writes it: magic, count, then per entry offset, size,
// ID length and ID; the code objects after the table.
std::vector<uint8_t> offload_bundle(const std::vector<std::string>& ids) {
  std::vector<uint8_t> b;
  auto u64 = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  const std::string magic = "__CLANG_OFFLOAD_BUNDLE__";
  b.insert(b.end(), magic.begin(), magic.end());
  u64(ids.size());
  size_t table = b.size();
  for (const auto& id : ids) table += 24 + id.size();
  uint64_t at = table;
  for (const auto& id : ids) {
    u64(at), u64(id.rfind("host", 0) == 0 ? 0 : 64), u64(id.size());
    b.insert(b.end(), id.begin(), id.end());
    at += id.rfind("host", 0) == 0 ? 0 : 64;
  }
  b.resize(at, 0x7f);
  return b;
}

// CCOB version 3 around `bundle`, compressed with zlib (method 0) or zstd (method 1).
std::vector<uint8_t> compressed_bundle(const std::vector<uint8_t>& bundle, int method) {
  std::vector<uint8_t> c;
  if (method == 0) {
    uLongf n = compressBound(bundle.size());
    c.resize(n);
    compress(c.data(), &n, bundle.data(), bundle.size());
    c.resize(n);
  } else {
    c.resize(ZSTD_compressBound(bundle.size()));
    c.resize(ZSTD_compress(c.data(), c.size(), bundle.data(), bundle.size(), 3));
  }
  std::vector<uint8_t> out = {'C', 'C', 'O', 'B', 3, 0, static_cast<uint8_t>(method), 0};
  auto u64 = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  u64(32 + c.size()), u64(bundle.size()), u64(0x1234);
  out.insert(out.end(), c.begin(), c.end());
  return out;
}

class HipWheels : public ::testing::Test {
 protected:
  testing::TempDir dir;
  // A shared object (gcc) whose .hip_fatbin section holds `section`.
  std::string so(const std::vector<uint8_t>& section) {
    std::string src = "__attribute__((section(\".hip_fatbin\"), used, aligned(4096))) const unsigned char fatbin[] = {";
    for (uint8_t b : section) src += std::to_string(b) + ",";
    src += "};\nint f(void) { return 1; }\n";
    testing::write_file(dir.file("h.c"), std::vector<uint8_t>(src.begin(), src.end()));
    auto r =
        run_command("gcc -shared -fPIC " + shell_quote(dir.file("h.c")) + " -o " + shell_quote(dir.file("libh.so")));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto b = testing::read_file(dir.file("libh.so"));
    return std::string(b.begin(), b.end());
  }
  std::vector<Finding> check(const std::string& lib, const std::string& gfx) {
    std::string doc = R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
      "default-priorities": {"namespace": ["amd"]}, "providers": {"amd": {"requires": ["amd-variant-provider"]}},
      "variants": {"rocm": {"amd": {"gfx_arch": [GFX]}}}})";
    doc.replace(doc.find("GFX"), 3, gfx);
    WheelBuilder w("hipkit", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
    w.filename("hipkit-1.0-cp312-cp312-manylinux_2_28_x86_64-rocm.whl");
    w.purelib(false).add("hipkit/libh.so", lib).add(w.dist_info() + "/variant.json", doc);
    return testing::findings_of(w.build(), w.filename());
  }
};

TEST_F(HipWheels, GfxArchIsBackedByTheOffloadBundle) {
  auto bundle = offload_bundle(
      {"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx942"});
  for (int kind : {-1, 0, 1}) {  // plain, zlib, zstd
    SCOPED_TRACE(kind);
    std::string lib = so(kind < 0 ? bundle : compressed_bundle(bundle, kind));
    BinaryFacts b;
    parse_binary_image(reinterpret_cast<const uint8_t*>(lib.data()), lib.size(), b);
    EXPECT_EQ(b.hip.targets, (std::vector<std::string>{"gfx90a:xnack-", "gfx942"})) << b.hip.error;
    EXPECT_EQ(b.hip.compression, kind < 0 ? "" : kind == 0 ? "zlib" : "zstd");
    auto ok = check(lib, R"("gfx90a", "gfx942")");
    EXPECT_FALSE(has_rule(ok, "WC804")) << testing::dump(ok);
    EXPECT_FALSE(has_rule(ok, "WC805")) << testing::dump(ok);
    auto lie = check(lib, R"("gfx1100", "gfx90a")");
    EXPECT_TRUE(
        says(lie, "'amd :: gfx_arch :: gfx1100' is declared but 1 of 1 HIP binaries carry no gfx1100 code object"))
        << testing::dump(lie);
    EXPECT_TRUE(says(lie, "code objects for gfx942 but no declared gfx_arch value names them")) << testing::dump(lie);
  }
  // A damaged bundle is reported, not a crash.
  auto bad = bundle;
  bad[31] = 0x7f;  // an absurd entry count (the high byte of the 64-bit count)
  std::string lib = so(bad);
  BinaryFacts b;
  parse_binary_image(reinterpret_cast<const uint8_t*>(lib.data()), lib.size(), b);
  EXPECT_NE(b.hip.error.find("claims"), std::string::npos) << b.hip.error;
}

}  // namespace
}  // namespace wc
