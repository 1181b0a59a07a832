#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "support/test_support.h"
#include "util/strings.h"
#include "wheel/filename.h"

namespace wc {
namespace {

TEST(WheelFilename, ParsesTorchStyleName) {
  auto w = parse_wheel_filename("torch-2.10.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl");
  ASSERT_TRUE(w.valid) << w.error;
  EXPECT_EQ(w.canonical_name, "torch");
  EXPECT_EQ(w.version->normalized(), "2.10.0+cu128");
  EXPECT_EQ(w.version->local, (std::vector<std::string>{"cu128"}));
  ASSERT_EQ(w.tags.size(), 1u);
  EXPECT_EQ(w.tags[0].str(), "cp312-cp312-manylinux_2_28_x86_64");
  EXPECT_TRUE(w.style_problems.empty());
}

TEST(WheelFilename, ExpandsCompressedTagSets) {
  auto w = parse_wheel_filename("six-1.16.0-py2.py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  ASSERT_TRUE(w.valid);
  std::set<std::string> got;
  for (const auto& t : w.tags) got.insert(t.str());
  EXPECT_EQ(got, (std::set<std::string>{"py2-none-manylinux_2_17_x86_64", "py2-none-manylinux2014_x86_64",
                                        "py3-none-manylinux_2_17_x86_64", "py3-none-manylinux2014_x86_64"}));
}

TEST(WheelFilename, BuildTag) {
  auto w = parse_wheel_filename("pkg-1.0-0042abc-py3-none-any.whl");
  ASSERT_TRUE(w.valid);
  EXPECT_EQ(w.build->number, "42");
  EXPECT_EQ(w.build->suffix, "abc");
  // Six parts whose third starts with a letter: PEP 825 reads python-abi-platform and a variant label.
  auto v = parse_wheel_filename("pkg-1.0-abc-py3-none-any.whl");
  ASSERT_TRUE(v.valid) << v.error;
  EXPECT_EQ(v.variant_label, "any");
  EXPECT_FALSE(v.build);
  EXPECT_FALSE(parse_wheel_filename("pkg-1.0-_bc-py3-none-any.whl").valid);  // neither: a bad build tag
}

TEST(WheelFilename, RejectsWithReason) {
  EXPECT_EQ(parse_wheel_filename("pkg-1.0-py3-none-any.zip").error, "file name does not end in .whl");
  EXPECT_NE(parse_wheel_filename("pkg-1.0-py3-any.whl").error.find("expected 5 to 7"), std::string::npos);
  EXPECT_NE(parse_wheel_filename("my__pkg-1.0-py3-none-any.whl").error.find("not escaped"), std::string::npos);
  EXPECT_NE(parse_wheel_filename("pkg-one-py3-none-any.whl").error.find("PEP 440"), std::string::npos);
}

// Interpreter tags no interpreter can match (issue 31). The cases are packaging's
// tests/test_utils.py test_parse_wheel_invalid_filename ('py3.', '2.7.6') and tests/test_tags.py
// (the InvalidTag cases 'py3.2-none-any', 'py+3-none-any'), where packaging 26.3 raises.
TEST(WheelFilename, RejectsTagsNoInterpreterMatches) {
  for (const char* f : {"foo-1.0-py3.-none-any.whl", "playlyfe-0.1.1-2.7.6-none-any.whl", "foo-1.0-py3.2-none-any.whl",
                        "foo-1.0-py+3-none-any.whl", "foo-1.0-py 3-none-any.whl", "foo-1.0-py3-none.-any.whl",
                        "foo-1.0-py3-none-.any.whl"}) {
    auto w = parse_wheel_filename(f);
    EXPECT_FALSE(w.valid) << f;
    EXPECT_NE(w.error.find("packaging and wheel refuse the name"), std::string::npos) << f << ": " << w.error;
  }
  EXPECT_EQ(parse_wheel_filename("playlyfe-0.1.1-2.7.6-none-any.whl").error,
            "interpreter tag '2' in '2.7.6' is not an identifier, so no interpreter matches it (packaging and wheel "
            "refuse the name)");
  // Identifiers pass, whatever their case or underscores.
  for (const char* f : {"foo-1.0-py2.py3-none-any.whl", "foo-1.0-cp313_t-none-any.whl", "foo-1.0-_x-none-any.whl",
                        "foo-1.0-PY3-none-any.whl"})
    EXPECT_TRUE(parse_wheel_filename(f).valid) << f << ": " << parse_wheel_filename(f).error;
}

TEST(WheelFilename, StyleProblems) {
  auto w = parse_wheel_filename("My.Pkg-01.0-PY3-none-any.whl");
  ASSERT_TRUE(w.valid);
  EXPECT_EQ(w.style_problems.size(), 3u) << join(w.style_problems, "\n");
}

TEST(Names, CanonicalizeAndEscape) {
  EXPECT_EQ(canonicalize_name("Foo.Bar__baz-qux"), "foo-bar-baz-qux");
  EXPECT_EQ(escape_name("Foo.Bar__baz-qux"), "foo_bar_baz_qux");
  EXPECT_TRUE(is_valid_project_name("a"));
  EXPECT_TRUE(is_valid_project_name("nvidia-cudnn-cu12"));
  EXPECT_FALSE(is_valid_project_name("-a"));
  EXPECT_FALSE(is_valid_project_name("a b"));
}

TEST(PlatformTags, Classification) {
  struct Case {
    const char* tag;
    PlatformFamily fam;
    bool pypi;
    const char* arch;
    int major, minor;
  };
  for (auto c : std::vector<Case>{{"any", PlatformFamily::any, true, "", 0, 0},
                                  {"manylinux_2_28_x86_64", PlatformFamily::manylinux, true, "x86_64", 2, 28},
                                  {"manylinux2014_aarch64", PlatformFamily::manylinux, true, "aarch64", 2, 17},
                                  {"manylinux1_x86_64", PlatformFamily::manylinux, true, "x86_64", 2, 5},
                                  {"manylinux2010_aarch64", PlatformFamily::manylinux, false, "aarch64", 2, 12},
                                  {"musllinux_1_2_x86_64", PlatformFamily::musllinux, true, "x86_64", 1, 2},
                                  {"linux_x86_64", PlatformFamily::linux, false, "x86_64", 0, 0},
                                  // PyPI accepts linux_armv6l/armv7l (forklift/legacy.py _allowed_platforms)
                                  // and manylinux_3_0_* (tests/unit/forklift/test_legacy.py
                                  // test_upload_succeeds_with_wheel: manylinux_3_0_s390x; PEP 600).
                                  {"linux_armv6l", PlatformFamily::linux, true, "armv6l", 0, 0},
                                  {"linux_armv7l", PlatformFamily::linux, true, "armv7l", 0, 0},
                                  {"linux_aarch64", PlatformFamily::linux, false, "aarch64", 0, 0},
                                  {"manylinux_3_0_x86_64", PlatformFamily::manylinux, true, "x86_64", 3, 0},
                                  {"macosx_11_0_arm64", PlatformFamily::macos, true, "arm64", 11, 0},
                                  {"macosx_10_9_universal2", PlatformFamily::macos, true, "universal2", 10, 9},
                                  {"macosx_11_3_arm64", PlatformFamily::macos, false, "arm64", 11, 3},
                                  {"macosx_16_0_arm64", PlatformFamily::macos, false, "arm64", 16, 0},
                                  {"win_amd64", PlatformFamily::windows, true, "amd64", 0, 0},
                                  {"ios_13_0_arm64_iphoneos", PlatformFamily::ios, true, "arm64", 13, 0},
                                  {"android_24_arm64_v8a", PlatformFamily::android, true, "arm64_v8a", 24, 0},
                                  {"pyemscripten_2026_0_wasm32", PlatformFamily::other, true, "wasm32", 2026, 0},
                                  {"pyemscripten_2024_x_wasm32", PlatformFamily::other, false, "", 0, 0},
                                  {"manylinux_2_28_sparc", PlatformFamily::manylinux, false, "sparc", 2, 28},
                                  {"solaris_2_11_i86pc", PlatformFamily::other, false, "", 0, 0}}) {
    PlatformTag p = classify_platform(c.tag);
    EXPECT_EQ(p.family, c.fam) << c.tag;
    EXPECT_EQ(p.pypi_accepted, c.pypi) << c.tag << ": " << p.problem;
    EXPECT_EQ(p.pypi_accepted, p.problem.empty()) << c.tag;
    if (*c.arch) {
      EXPECT_EQ(p.arch, c.arch) << c.tag;
    }
    EXPECT_EQ(p.major, c.major) << c.tag;
    EXPECT_EQ(p.minor, c.minor) << c.tag;
  }
}

// ---- Differential test against packaging.utils.parse_wheel_filename --------------------------

std::vector<std::string> generate_filenames(size_t n) {
  std::mt19937 rng(20261129);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  const std::vector<std::string> names = {
      "torch", "nvidia_cudnn_cu12", "Foo", "foo.bar", "foo_bar",     "a",   "A1",   "my__pkg", "foo-bar",
      "",      "zope.interface",    "x_",  "_x",      "caf\xc3\xa9", "a b", "pkg!", "numpy",   "Flask_SQLAlchemy",
      "9lives"};
  const std::vector<std::string> versions = {"1.0",
                                             "2.10.0+cu128",
                                             "1.0.post1",
                                             "1.0-1",
                                             "1.0a1",
                                             "1.0.dev3",
                                             "1!2.0",
                                             "v1.0",
                                             "1.0rc1",
                                             "1.0+local.7",
                                             "01.02",
                                             "1.0.0.0.0",
                                             "1.0_post_",
                                             "1.0c1",
                                             "one",
                                             "1.0+",
                                             "1..0",
                                             "",
                                             "2.0.0b1.post2.dev3",
                                             "1.0+UBUNTU",
                                             "1.0a.dev",
                                             "1.0preview2",
                                             "1.0r",
                                             "1.0-",
                                             "0.0.0+cpu"};
  const std::vector<std::string> builds = {"", "", "", "1", "0042abc", "abc", "7_x", "1.2"};
  const std::vector<std::string> pys = {"py3", "cp312", "py2.py3", "cp313", "pp310", "PY3", "cp39.cp310",
                                        "",    "py",    "py3.",    "py+3",  "py3.2", "2.7"};
  const std::vector<std::string> abis = {"none", "cp312", "abi3", "cp313t", "cp39.cp310", "CP312", "", "pypy310_pp73"};
  const std::vector<std::string> plats = {"any",
                                          "manylinux_2_28_x86_64",
                                          "manylinux_2_17_x86_64.manylinux2014_x86_64",
                                          "win_amd64",
                                          "macosx_11_0_arm64",
                                          "linux_x86_64",
                                          "musllinux_1_2_aarch64",
                                          "",
                                          "Any"};
  std::vector<std::string> out;
  while (out.size() < n) {
    std::string f = pick(names) + "-" + pick(versions);
    std::string b = pick(builds);
    if (!b.empty()) f += "-" + b;
    f += "-" + pick(pys) + "-" + pick(abis) + "-" + pick(plats);
    switch (rng() % 12) {
      case 0: f += ".zip"; break;
      case 1: f += "-extra.whl"; break;
      default: f += ".whl";
    }
    out.push_back(f);
  }
  return out;
}

// Why we may disagree with packaging, by spec section. Each returns true when the filename is in
// a class where wheelcheck is deliberately stricter.
std::string known_disagreement(const std::string& f) {
  std::string stem = f.substr(0, f.size() - 4);
  auto parts = split(stem, '-');
  // PEP 425: each tag component is a non-empty identifier; packaging accepts Tag('', ...).
  // (With a PEP 825 label the tags are the three parts before it.)
  for (size_t i = parts.size() < 4 ? 0 : parts.size() - 4; i < parts.size(); ++i)
    if (i >= 2 && parts[i].empty()) return "empty tag (PEP 425)";
  // packaging before 26.3 (the oracle may be older) accepts a compressed tag set with an empty
  // member and interpreter tags that are not identifiers; 26.3 and pypa/wheel refuse them.
  if (parts.size() >= 5) {
    const size_t first = parts.size() == 7 || (parts.size() == 6 && !parts[2].empty() &&
                                               std::isalpha(static_cast<unsigned char>(parts[2][0])))
                             ? parts.size() - 4
                             : parts.size() - 3;
    for (size_t i = first; i < first + 3 && i < parts.size(); ++i)
      for (auto m : split(parts[i], '.')) {
        if (m.empty()) return "empty member of a tag set (packaging 26.3)";
        if (i == first && (std::isdigit(static_cast<unsigned char>(m[0])) ||
                           std::any_of(m.begin(), m.end(), [](char c) { return c == '+' || c == ' '; })))
          return "interpreter tag not an identifier (packaging 26.3)";
      }
  }
  // Binary distribution format spec: the name is escaped to [A-Za-z0-9_.]; packaging's \w also
  // accepts non-ASCII letters.
  if (!parts.empty() &&
      std::any_of(parts[0].begin(), parts[0].end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
    return "non-ASCII name";
  // An empty distribution name is not a name (PEP 508 requires at least one character).
  if (!parts.empty() && parts[0].empty()) return "empty name";
  // PEP 825: with a build tag and a variant label, the python tag must not start with a digit.
  if (parts.size() == 7 && !parts[3].empty() && std::isdigit(static_cast<unsigned char>(parts[3][0])))
    return "PEP 825: python tag starting with a digit";
  return "";
}

TEST(Differential, FilenamesAgreeWithPackaging) {
  std::string py = testing::python_with_packaging();
  if (py.empty()) GTEST_SKIP() << "no python3 with the 'packaging' module (install python3-packaging)";
  auto names = generate_filenames(1500);
  testing::TempDir tmp;
  {
    // packaging does not know PEP 825 variant labels: where wheelcheck reads one, packaging judges
    // the name without it (the label itself is checked against ^[0-9a-z_.]+$ by wheelcheck alone).
    std::ofstream in(tmp.file("names.txt"), std::ios::binary);
    for (const auto& n : names) {
      auto w = parse_wheel_filename(n);
      in << (w.variant_label ? n.substr(0, n.size() - 5 - w.variant_label->size()) + ".whl" : n) << "\n";
    }
  }
  auto r = testing::run_command(py + " " +
                                testing::shell_quote(std::string(WC_SOURCE_DIR) + "/tests/tools/packaging_oracle.py") +
                                " < " + testing::shell_quote(tmp.file("names.txt")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  size_t i = 0, valid = 0, invalid = 0, explained = 0;
  while (std::getline(lines, line)) {
    ASSERT_LT(i, names.size());
    const std::string& f = names[i++];
    auto ref = nlohmann::json::parse(line);
    auto w = parse_wheel_filename(f);
    bool ref_ok = ref["ok"];
    if (ref_ok != w.valid) {
      std::string why = known_disagreement(f);
      EXPECT_TRUE(ref_ok && !w.valid && !why.empty())
          << "disagreement on '" << f << "': packaging " << (ref_ok ? "accepts" : "rejects") << ", wheelcheck "
          << (w.valid ? "accepts" : "rejects: " + w.error);
      ++explained;
      continue;
    }
    (w.valid ? valid : invalid)++;
    if (!w.valid) continue;
    EXPECT_EQ(ref["name"], w.canonical_name) << f;
    EXPECT_EQ(ref["version"], w.version->normalized()) << f;
    if (ref["build"].is_null()) {
      EXPECT_FALSE(w.build) << f;
    } else {
      ASSERT_TRUE(w.build) << f;
      EXPECT_EQ(ref["build"][0], w.build->number) << f;
      EXPECT_EQ(ref["build"][1], w.build->suffix) << f;
    }
    std::vector<std::string> tags;
    for (const auto& t : w.tags) tags.push_back(to_lower(t.str()));  // packaging's Tag lower-cases
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    EXPECT_EQ(ref["tags"].get<std::vector<std::string>>(), tags) << f;
  }
  EXPECT_EQ(i, names.size());
  // The generator must exercise both sides, or the comparison proves little.
  EXPECT_GT(valid, 300u);
  EXPECT_GT(invalid, 300u);
  RecordProperty("valid", static_cast<int>(valid));
  RecordProperty("invalid", static_cast<int>(invalid));
  RecordProperty("explained_disagreements", static_cast<int>(explained));
}

}  // namespace
}  // namespace wc
