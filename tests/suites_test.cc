// The pad_concat and dtensor_view suites (and the RNG generator's state machine): references
// against hand-worked values and Python's own float16 packing, the rewrite's predicate, the law on
// simulated ranks (and that a wrong propagation breaks it), --cases files whose wrong expectations
// fail, and the same suites on a GPU where one exists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "dtensor_view/view.h"
#include "pad_concat/pad.h"
#include "rng_graph/backend.h"
#include "rng_graph/checks.h"
#include "smoke/suites/suite.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using nlohmann::json;

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// ---- pad --------------------------------------------------------------------------------------------

TEST(PadReference, ShapesAndPyTorchRefusals) {
  using pad::padded_shape;
  EXPECT_EQ(padded_shape({2, 3, 5}, {0, 3}), (std::vector<int64_t>{2, 3, 8}));
  EXPECT_EQ(padded_shape({2, 3, 5}, {1, 1, 2, 0}), (std::vector<int64_t>{2, 5, 7}));
  EXPECT_EQ(padded_shape({4}, {-4, 2}), (std::vector<int64_t>{2}));
  EXPECT_EQ(padded_shape({4}, {-4, 0}), (std::vector<int64_t>{0}));
  EXPECT_EQ(padded_shape({2, 0}, {0, 0, 1, 1}), (std::vector<int64_t>{4, 0}));
  EXPECT_NE(message_of([] { padded_shape({4}, {1}); }).find("divisible by 2"), std::string::npos);
  EXPECT_NE(message_of([] {
              padded_shape({4}, {0, 0, 1, 1});
            }).find("padding length 4 and input of dimension 1"),
            std::string::npos);
  EXPECT_NE(message_of([] { padded_shape({}, {1, 1}); }).find("input of dimension 0"), std::string::npos);
  EXPECT_NE(message_of([] { padded_shape({4}, {-3, -2}); }).find("negative output size"), std::string::npos);
  EXPECT_TRUE(padded_shape({}, {}).empty());
}

TEST(PadReference, FillBitsFollowC10) {
  using pad::DType;
  EXPECT_EQ(pad::fill_bits(DType::f32, NAN), 0x7fc00000u);
  EXPECT_EQ(pad::fill_bits(DType::f32, -0.0), 0x80000000u);
  EXPECT_EQ(pad::fill_bits(DType::f16, NAN), 0x7e00u);
  EXPECT_EQ(pad::fill_bits(DType::bf16, NAN), 0x7fc0u);
  EXPECT_EQ(pad::fill_bits(DType::bf16, -INFINITY), 0xff80u);
  EXPECT_EQ(pad::fill_bits(DType::i32, 2.5), 2u);
  EXPECT_EQ(pad::fill_bits(DType::i32, -2.7), 0xfffffffeu);  // truncation toward zero
  EXPECT_EQ(pad::fill_bits(DType::i64, -2.7), ~uint64_t(0) - 1);
  EXPECT_NE(message_of([] { pad::fill_bits(DType::f16, 70000); }).find("at::Half without overflow"), std::string::npos);
  EXPECT_NE(message_of([] { pad::fill_bits(DType::f16, 65519); }).find("without overflow"), std::string::npos);
  EXPECT_EQ(pad::fill_bits(DType::f16, 65504), 0x7bffu);
  EXPECT_NE(message_of([] { pad::fill_bits(DType::i32, NAN); }).find("int32_t without overflow"), std::string::npos);
  EXPECT_NE(message_of([] { pad::fill_bits(DType::i64, 9.3e18); }).find("int64_t"), std::string::npos);
}

// float32 -> float16 rounding against Python's struct 'e' (IEEE 754 binary16, round half to even).
TEST(PadReference, HalfRoundingAgreesWithPythonStruct) {
  std::mt19937 rng(7);
  std::vector<float> vals = {0.f,      -0.f,    1.f,   65504.f,   65519.f, 65520.f, 5.96e-8f, 2.98e-8f,
                             2.99e-8f, 6.1e-5f, 1e-7f, -3.14159f, 1024.5f, 2049.f,  2051.f};
  std::uniform_int_distribution<uint32_t> bits(0, 0xffffffffu);
  while (vals.size() < 3000) {
    uint32_t b = bits(rng);
    b = (b & 0x807fffffu) | ((100u + (b >> 23) % 60u) << 23);  // exponents around float16's range
    float f;
    std::memcpy(&f, &b, 4);
    vals.push_back(f);
  }
  std::string py =
      "import struct,sys\nfor line in sys.stdin:\n  x=float.fromhex(line.strip())\n  try:\n"
      "    print('%04x' % struct.unpack('<H', struct.pack('<e', x))[0])\n  except OverflowError:\n"
      "    print('ovf')\n";
  testing::TempDir d;
  std::string input;
  char buf[64];
  for (float f : vals) {
    std::snprintf(buf, sizeof buf, "%a\n", double(f));
    input += buf;
  }
  testing::write_file(d.file("in.txt"), std::vector<uint8_t>(input.begin(), input.end()));
  testing::write_file(d.file("h.py"), std::vector<uint8_t>(py.begin(), py.end()));
  auto r = testing::run_command("python3 " + testing::shell_quote(d.file("h.py")) + " < " +
                                testing::shell_quote(d.file("in.txt")));
  if (r.exit_code == 127) GTEST_SKIP() << "python3 not found";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  size_t i = 0, checked = 0;
  while (std::getline(lines, line) && i < vals.size()) {
    uint16_t mine = pad::float_to_half_bits(vals[i]);
    if (line == "ovf") {
      EXPECT_EQ(mine & 0x7fffu, 0x7c00u) << "value " << vals[i] << ": Python overflows, ours is not inf";
    } else {
      EXPECT_EQ(mine, uint16_t(std::stoul(line, nullptr, 16))) << "value " << vals[i];
    }
    ++i, ++checked;
  }
  EXPECT_EQ(checked, vals.size());
}

TEST(PadReference, PadAndChecksumByHand) {
  using pad::DType;
  // int32 [2,2] arange, pad [0,1] with 7: [[0,1,7],[2,3,7]].
  pad::Tensor t = pad::pad_reference(pad::arange({2, 2}, DType::i32), {0, 1}, pad::fill_bits(DType::i32, 7));
  ASSERT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  std::vector<uint64_t> want = {0, 1, 7, 2, 3, 7}, got;
  for (int64_t i = 0; i < t.numel(); ++i) got.push_back(t.bits_at(i));
  EXPECT_EQ(got, want);
  EXPECT_EQ(pad::checksum(t), 20u);
  // float16 arange [3] = 0, 1, 2 = 0x0000 0x3c00 0x4000; left pad -0.0 = 0x8000.
  pad::Tensor h = pad::pad_reference(pad::arange({3}, DType::f16), {1, 0}, pad::fill_bits(DType::f16, -0.0));
  EXPECT_EQ(pad::checksum(h), 0x8000u + 0x3c00u + 0x4000u);
  // int64: both 32-bit halves count.
  pad::Tensor l = pad::pad_reference(pad::arange({1}, DType::i64), {0, 1}, pad::fill_bits(DType::i64, -1));
  EXPECT_EQ(pad::checksum(l), 0xfffffffeu);
  // crop then pad: [-4, 2] on [4] is all fill.
  pad::Tensor c = pad::pad_reference(pad::arange({4}, DType::f32), {-4, 2}, 0x7fc00000u);
  EXPECT_EQ(c.numel(), 2);
  EXPECT_EQ(c.bits_at(0), 0x7fc00000u);
  EXPECT_EQ(c.bits_at(1), 0x7fc00000u);
}

TEST(PadRewrite, EligibilityPredicate) {
  auto e = pad::cat_rewrite_eligible({0, 3}, 2, 2);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->dim, 1);
  EXPECT_EQ(e->amount, 3);
  EXPECT_FALSE(pad::cat_rewrite_eligible({0, 3}, 2, 1));        // one consumer: nothing to share
  EXPECT_FALSE(pad::cat_rewrite_eligible({1, 3}, 2, 2));        // left pad
  EXPECT_FALSE(pad::cat_rewrite_eligible({0, -1}, 2, 2));       // negative
  EXPECT_FALSE(pad::cat_rewrite_eligible({0, 1, 0, 1}, 2, 2));  // two dims
  EXPECT_FALSE(pad::cat_rewrite_eligible({0, 0}, 2, 2));        // no pad at all
}

TEST(PadRewrite, CpuImplementationsShareOneBufferAndRunTheProducerOnce) {
  auto be = pad::make_cpu_backend();
  pad::Tensor x = pad::arange({3, 129}, pad::DType::bf16);
  uint64_t fill = pad::fill_bits(pad::DType::bf16, NAN);
  auto rw = *pad::cat_rewrite_eligible({0, 7}, 2, 2);
  pad::Tensor want = pad::pad_reference(pad::produce(x, pad::Producer::twice), {0, 7}, fill);
  pad::PadRun r = be->multi_consumer(x, pad::Producer::twice, rw, fill);
  EXPECT_EQ(r.out.data, want.data);
  EXPECT_EQ(r.producer_launches, 1u);
  EXPECT_EQ(r.producer_ran, 1u);
  EXPECT_EQ(r.view_base, r.buffer_base);
  EXPECT_EQ(r.view_strides, (std::vector<int64_t>{136, 1, 1}));
  EXPECT_EQ(r.consumer, pad::consumer_reference(pad::produce(x, pad::Producer::twice), 1));
  EXPECT_EQ(r.out.bits_at(129), 0x7fc0u);  // the first pad element of row 0
}

std::vector<smoke::CaseOutcome> run_suite(const std::string& name, const json& cases, bool cpu = true) {
  for (auto& s : smoke::all_suites())
    if (s->name() == name) {
      s->add_cases(cases);
      smoke::RunContext ctx;
      ctx.want_cpu = cpu;
      ctx.want_cuda = !cpu;
      return s->run(ctx);
    }
  return {};
}

const smoke::CaseOutcome* find(const std::vector<smoke::CaseOutcome>& os, const std::string& name) {
  for (const auto& o : os)
    if (o.name == name) return &o;
  return nullptr;
}

TEST(PadSuite, CasesFileExpectationsMustHold) {
  // checksum of arange(6) f32 padded by [0,1] with 0: the float bits of 0..5 plus two zeros.
  uint32_t sum = 0;
  for (int i = 0; i < 6; ++i) {
    float f = float(i);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    sum += b;
  }
  json doc = {
      {"suite", "pad_concat"},
      {"cases",
       {{{"name", "ok"},
         {"shape", {2, 3}},
         {"dtype", "float32"},
         {"pad", {0, 1}},
         {"value", 0.0},
         {"expect_shape", {2, 4}},
         {"checksum", sum},
         {"note", "hand checksum"}},
        {{"name", "nan_bits"},
         {"shape", {2, 3}},
         {"dtype", "bfloat16"},
         {"pad", {0, 2}},
         {"value", "nan"},
         {"expect_fill_bits", "0x7fc0"}},
        {{"name", "refused"},
         {"shape", {4}},
         {"dtype", "int32"},
         {"pad", {0, 1}},
         {"value", "nan"},
         {"expect", "error"}},
        {{"name", "wrong_shape"}, {"shape", {2, 3}}, {"dtype", "float32"}, {"pad", {0, 1}}, {"expect_shape", {2, 5}}},
        {{"name", "wrong_checksum"}, {"shape", {2, 3}}, {"dtype", "float32"}, {"pad", {0, 1}}, {"checksum", sum + 1}},
        {{"name", "wrong_bits"},
         {"shape", {2, 3}},
         {"dtype", "float16"},
         {"pad", {0, 1}},
         {"value", "-0.0"},
         {"expect_fill_bits", "0x0000"}},
        {{"name", "not_an_error"},
         {"shape", {4}},
         {"dtype", "int64"},
         {"pad", {0, 1}},
         {"value", 2.5},
         {"expect", "error"}}}}};
  auto out = run_suite("pad_concat", doc);
  for (const char* good : {"case/ok", "case/nan_bits", "case/refused"}) {
    auto* o = find(out, good);
    ASSERT_TRUE(o) << good;
    EXPECT_TRUE(o->passed) << good << ": " << o->message;
  }
  for (const char* bad : {"case/wrong_shape", "case/wrong_checksum", "case/wrong_bits", "case/not_an_error"}) {
    auto* o = find(out, bad);
    ASSERT_TRUE(o) << bad;
    EXPECT_FALSE(o->passed) << bad << " passed but its expectation is wrong";
  }
  EXPECT_NE(find(out, "case/wrong_bits")->message.find("0x8000"), std::string::npos);
}

TEST(PadSuite, CasesFileErrorsNameTheKey) {
  auto err = [](json c) {
    return message_of([&] { run_suite("pad_concat", {{"suite", "pad_concat"}, {"cases", {c}}}); });
  };
  EXPECT_NE(
      err({{"shape", {2}}, {"dtype", "float32"}, {"pad", {0, 1}}, {"colour", 1}}).find("/cases/0/colour: unknown key"),
      std::string::npos);
  EXPECT_NE(err({{"shape", {2}}, {"dtype", "float64"}, {"pad", {0, 1}}}).find("/cases/0/dtype"), std::string::npos);
  EXPECT_NE(err({{"shape", {2}}, {"dtype", "float16"}, {"pad", {0, 1}}, {"expect_fill_bits", "0x7fc00000"}})
                .find("/cases/0/expect_fill_bits"),
            std::string::npos);
  EXPECT_NE(err({{"shape", {2}}, {"dtype", "float32"}, {"pad", {0, 1}}, {"value", "lots"}}).find("/cases/0/value"),
            std::string::npos);
}

// ---- dtensor_view --------------------------------------------------------------------------------------

std::string specs(const dtv::Shape& from, const dtv::Shape& to) {
  dtv::Shape out;
  std::string s;
  for (const auto& d : dtv::view_groups(from, to, &out)) s += (s.empty() ? "" : " ") + dtv::to_string(d);
  return s;
}

TEST(DTensorView, ViewGroupsAsPyTorchWritesThem) {
  EXPECT_EQ(specs({2, 3, 4}, {2, 12}), "In0 Flatten(In1,In2)");
  EXPECT_EQ(specs({24}, {2, 12}), "Split(In0,[2,12],0) Split(In0,[2,12],1)");
  EXPECT_EQ(specs({4, 6}, {1, 4, 6}), "Singleton In0 In1");
  EXPECT_EQ(specs({4, 1, 6}, {4, 6}), "In0 In2");
  EXPECT_EQ(specs({4, 6}, {3, 8}), "Split(Flatten(In0,In1),[3,8],0) Split(Flatten(In0,In1),[3,8],1)");
  EXPECT_EQ(specs({8, 4}, {-1}), "Flatten(In0,In1)");
  EXPECT_NE(message_of([] { specs({8, 4}, {5, -1}); }).find("invalid for input of size 32"), std::string::npos);
}

TEST(DTensorView, ChunksFollowTorchChunk) {
  dtv::Tensor x = dtv::arange({5});
  auto S0 = *dtv::parse_placement("S(0)");
  std::vector<int64_t> sizes;
  for (int64_t c = 0; c < 4; ++c) sizes.push_back(int64_t(dtv::shard(x, {4}, {S0}, {c}).data.size()));
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 2, 1, 0}));  // ceil(5/4) = 2: the last rank holds nothing
  auto ss = dtv::shard(dtv::arange({8}), {2}, {*dtv::parse_placement("SS(0,2)")}, {1});
  EXPECT_EQ(ss.data, (std::vector<int64_t>{2, 3, 6, 7}));
}

TEST(DTensorView, AWrongPropagationBreaksTheLaw) {
  dtv::Op view{"view", {8}};
  auto right = dtv::propagate(view, {2, 4}, {2}, {*dtv::parse_placement("S(1)")});
  ASSERT_EQ(dtv::to_string(right.out), "[SS(0,2)]");
  EXPECT_EQ(dtv::law_holds(view, {2, 4}, {2}, right), "");
  auto wrong = right;
  wrong.out = {*dtv::parse_placement("S(0)")};  // what a propagation without _StridedShard would claim
  EXPECT_NE(dtv::law_holds(view, {2, 4}, {2}, wrong), "");
  auto unsharded = right;  // claiming nothing was gathered while the input stays sharded
  unsharded.out = {dtv::Placement{}};
  EXPECT_NE(dtv::law_holds(view, {2, 4}, {2}, unsharded), "");
}

TEST(DTensorSuite, CasesFileExpectationsMustHold) {
  json doc = {{"suite", "dtensor_view"},
              {"cases",
               {{{"name", "ok"},
                 {"shape", {8, 4}},
                 {"mesh", {2}},
                 {"placements", {"S(1)"}},
                 {"op", "view"},
                 {"args", {32}},
                 {"expect", {"SS(0,8)"}}},
                {{"name", "unflatten"},
                 {"shape", {12}},
                 {"mesh", {2}},
                 {"placements", {"S(0)"}},
                 {"op", "unflatten"},
                 {"args", json::array({0, {2, 6}})},
                 {"expect", {"S(0)"}},
                 {"expect_gathers", 0}},
                {{"name", "raises"},
                 {"shape", {10}},
                 {"mesh", {4}},
                 {"placements", {"S(0)"}},
                 {"op", "view"},
                 {"args", {2, 5}},
                 {"expect", "error"}},
                {{"name", "wrong_placement"},
                 {"shape", {8, 4}},
                 {"mesh", {2}},
                 {"placements", {"S(1)"}},
                 {"op", "view"},
                 {"args", {32}},
                 {"expect", {"S(0)"}}},
                {{"name", "wrong_error"},
                 {"shape", {4, 6}},
                 {"mesh", {2}},
                 {"placements", {"S(0)"}},
                 {"op", "transpose"},
                 {"args", {0, 1}},
                 {"expect", "error"}},
                {{"name", "wrong_gathers"},
                 {"shape", {4, 6}},
                 {"mesh", {2}},
                 {"placements", {"S(0)"}},
                 {"op", "repeat"},
                 {"args", {2, 1}},
                 {"expect", {"R"}},
                 {"expect_gathers", 0}}}}};
  auto out = run_suite("dtensor_view", doc);
  for (const char* good : {"case/ok", "case/unflatten", "case/raises"}) {
    auto* o = find(out, good);
    ASSERT_TRUE(o) << good;
    EXPECT_TRUE(o->passed) << good << ": " << o->message;
  }
  for (const char* bad : {"case/wrong_placement", "case/wrong_error", "case/wrong_gathers"}) {
    auto* o = find(out, bad);
    ASSERT_TRUE(o) << bad;
    EXPECT_FALSE(o->passed) << bad << " passed but its expectation is wrong";
  }
  auto* sweep = find(out, "law_sweep");
  ASSERT_TRUE(sweep);
  EXPECT_TRUE(sweep->passed) << sweep->message;
  EXPECT_NE(
      message_of([] {
        run_suite(
            "dtensor_view",
            {{"suite", "dtensor_view"},
             {"cases", {{{"shape", {2}}, {"mesh", {2}}, {"placements", {"Q"}}, {"op", "view"}, {"expect", {"R"}}}}}});
      }).find("/cases/0/placements/0"),
      std::string::npos);
  EXPECT_NE(message_of([] {
              run_suite("dtensor_view", {{"suite", "dtensor_view"},
                                         {"cases",
                                          {{{"shape", {2}},
                                            {"mesh", {2}},
                                            {"placements", {"R"}},
                                            {"op", "view"},
                                            {"expect", {"R"}},
                                            {"mesh_dim", 0}}}}});
            }).find("/cases/0/mesh_dim: unknown key"),
            std::string::npos);
}

TEST(SuitesCli, HeldOutCasesThroughTheCommandLine) {
  testing::TempDir d;
  auto write = [&](const std::string& name, const std::string& text) {
    testing::write_file(d.file(name), std::vector<uint8_t>(text.begin(), text.end()));
    return d.file(name);
  };
  auto smoke = [](const std::vector<std::string>& args) {
    std::string cmd = "env -u GITHUB_STEP_SUMMARY NO_COLOR=1 " + testing::shell_quote(WS_BINARY);
    for (const auto& a : args) cmd += " " + testing::shell_quote(a);
    return testing::run_command(cmd);
  };
  auto good_pad = write("pad.json", R"J({"suite": "pad_concat", "cases": [{"name": "p", "shape": [2, 3, 5],
      "dtype": "float32", "pad": [0, 3], "value": "-0.0", "expect_shape": [2, 3, 8],
      "expect_fill_bits": "0x80000000"}]})J");
  auto good_dt = write("dt.json", R"J({"suite": "dtensor_view", "cases": [{"name": "d", "shape": [8, 4],
      "mesh": [2], "placements": ["S(1)"], "op": "view", "args": [32], "expect": ["SS(0,8)"]}]})J");
  auto r = smoke({"run", "--backend", "cpu", "--cases", good_pad, "--cases", good_dt});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto wrong = write("wrong.json", R"J({"suite": "dtensor_view", "cases": [{"name": "d", "shape": [8, 4],
      "mesh": [2], "placements": ["S(1)"], "op": "view", "args": [32], "expect": ["S(0)"]}]})J");
  r = smoke({"run", "--backend", "cpu", "--suite", "dtensor_view", "--cases", wrong});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("WS201"), std::string::npos) << r.out;
  auto unknown = write("unknown.json", R"J({"suite": "pad_concat", "cases": [{"shape": [2], "dtype": "int32",
      "pad": [0, 1], "fill": 3}]})J");
  r = smoke({"run", "--backend", "cpu", "--cases", unknown});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(unknown + ": /cases/0/fill: unknown key"), std::string::npos) << r.err;
}

TEST(SuitesCases, HostileSizesAreRefusedAtLoad) {
  auto err = [](const char* suite, json c) {
    return message_of([&] { run_suite(suite, {{"suite", suite}, {"cases", {c}}}); });
  };
  const int64_t big = int64_t(1) << 20;
  EXPECT_NE(err("dtensor_view", {{"shape", {big, big, big, big, big, big, big, big}},
                                 {"mesh", {2}},
                                 {"placements", {"R"}},
                                 {"op", "view"},
                                 {"args", {-1}},
                                 {"expect", {"R"}}})
                .find("/cases/0/shape: more than 2^22 elements"),
            std::string::npos);
  EXPECT_NE(err("dtensor_view", {{"shape", {64, 64}},
                                 {"mesh", {64, 64}},
                                 {"placements", {"R", "R"}},
                                 {"op", "repeat"},
                                 {"args", {1000, 1000}},
                                 {"expect", {"R", "R"}}})
                .find("/cases/0/args: the output would have more than 2^22 elements"),
            std::string::npos);
  EXPECT_NE(err("dtensor_view", {{"shape", {1024, 1024}},
                                 {"mesh", {64, 64}},
                                 {"placements", {"R", "R"}},
                                 {"op", "transpose"},
                                 {"args", {0, 1}},
                                 {"expect", {"R", "R"}}})
                .find("/cases/0/mesh: ranks x elements"),
            std::string::npos);
  // An absurd view shape loads (the op raising is a case's outcome) and fails as invalid, never overflowing.
  auto out = run_suite("dtensor_view", {{"suite", "dtensor_view"},
                                        {"cases",
                                         {{{"name", "absurd"},
                                           {"shape", {4}},
                                           {"mesh", {2}},
                                           {"placements", {"R"}},
                                           {"op", "view"},
                                           {"args", {big, big, big, big, big, big, big}},
                                           {"expect", {"R"}}}}}});
  auto* o = find(out, "case/absurd");
  ASSERT_TRUE(o);
  EXPECT_FALSE(o->passed);
  EXPECT_NE(o->message.find("too large"), std::string::npos) << o->message;
  EXPECT_NE(err("pad_concat", {{"shape", {4096, 4096}}, {"dtype", "int64"}, {"pad", {0, (int64_t(1) << 40) - 1}}})
                .find("/cases/0/pad: the output would have more than 2^24 elements"),
            std::string::npos);
  EXPECT_NE(err("pad_concat", {{"shape", {big, big}}, {"dtype", "int64"}, {"pad", {0, 1}}})
                .find("/cases/0/shape: more than 2^24 elements"),
            std::string::npos);
}

// The --cases examples docs/wheelsmoke.md shows run as written (a placeholder "..." marks one that is not
// meant to).
TEST(SuitesCli, ReadmeCaseExamplesRun) {
  auto bytes = testing::read_file(std::string(WC_SOURCE_DIR) + "/docs/wheelsmoke.md");
  std::string readme(bytes.begin(), bytes.end());
  testing::TempDir d;
  size_t pos = 0, ran = 0;
  while ((pos = readme.find("```json\n", pos)) != std::string::npos) {
    size_t start = pos + 8, end = readme.find("```", start);
    ASSERT_NE(end, std::string::npos);
    std::string block = readme.substr(start, end - start);
    pos = end + 3;
    auto doc = json::parse(block, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("suite") || block.find("...") != std::string::npos)
      continue;
    std::string file = d.file("example" + std::to_string(ran) + ".json");
    testing::write_file(file, std::vector<uint8_t>(block.begin(), block.end()));
    std::string cmd = "env -u GITHUB_STEP_SUMMARY NO_COLOR=1 " + testing::shell_quote(WS_BINARY) +
                      " run --backend cpu --suite " + doc["suite"].get<std::string>() + " --cases " +
                      testing::shell_quote(file);
    auto r = testing::run_command(cmd);
    EXPECT_EQ(r.exit_code, 0) << "docs/wheelsmoke.md example for " << doc["suite"] << ":\n" << block << r.out << r.err;
    ++ran;
  }
  EXPECT_GE(ran, 2u) << "docs/wheelsmoke.md's pad_concat and dtensor_view examples were not found";
}

// ---- RNG state machine -------------------------------------------------------------------------------

TEST(RngGenerator, StateMachineRefusals) {
  auto be = rng::make_cpu_backend();
  EXPECT_EQ(rng::check_state_machine(*be), "");
  EXPECT_EQ(rng::check_size_sweep(*be), "");
  rng::Generator g(1, be->slots());
  EXPECT_THROW(g.set_offset(2), rng::GeneratorStateError);
  auto id = g.capture_begin();
  EXPECT_THROW(g.set_offset(4), rng::GeneratorStateError);
  g.capture_end(id);
  EXPECT_THROW(g.capture_end(id), rng::GeneratorStateError);
  EXPECT_THROW(g.release(id + 7), rng::GeneratorStateError);
}

// ---- on the GPU -------------------------------------------------------------------------------------------

TEST(CudaSuites, AllThreeMatchTheirReferencesOnTheDevice) {
  std::string why;
  auto be = pad::make_cuda_backend(&why);
  if (!be) GTEST_SKIP() << "no GPU: " << why;
  for (const char* suite : {"rng_graph", "pad_concat", "dtensor_view"}) {
    auto out = run_suite(suite, json::array(), false);
    ASSERT_FALSE(out.empty()) << suite;
    for (const auto& o : out) EXPECT_TRUE(o.passed) << suite << "/" << o.name << ": " << o.message;
  }
}

}  // namespace
}  // namespace wc
