// Each rule of the core issue fires on a wheel broken that way, with the entry it concerns, and
// stays silent on the correct wheel (the first test).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <tuple>

#include "facts/analyze.h"
#include "io/source.h"
#include "io/zip_index.h"
#include "pipeline/check.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "support/test_support.h"
#include "util/strings.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::WheelBuilder;

std::vector<Finding> check(const WheelBuilder& b, const std::string& policy = "default") {
  return testing::findings_of(b.build(), b.filename(), policy);
}

const Finding* first(const std::vector<Finding>& fs, const std::string& rule) {
  for (const auto& f : fs)
    if (f.rule == rule) return &f;
  return nullptr;
}

long count_rule(const std::vector<Finding>& fs, const std::string& rule) {
  return std::count_if(fs.begin(), fs.end(), [&](const Finding& f) { return f.rule == rule; });
}

WheelBuilder base() { return WheelBuilder("demo-pkg", "1.0").add("demo_pkg/__init__.py", "x = 1\n"); }

// A file key that is a directory too (WC401 "installs 'K' as a file, and the entry 'E' as a
// directory"), against a brute force over random trees: for each file key, the first entry in
// archive order below it (a deeper key, or a directory entry of that key). Every tenth tree also
// holds a 400-deep path, which sends the rule from its parent lookups to its sort.
TEST(Rules, FileDirectoryClashesAsABruteForceFindsThem) {
  uint64_t seed = 0xC1A5;
  auto next = [&](uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  const char* const parts[] = {"a", "b", "ab"};
  size_t clashes = 0;
  for (int tree = 0; tree < 150; ++tree) {
    std::vector<std::string> names;  // archive order, each once
    for (size_t n = 2 + next(10); names.size() < n;) {
      std::string name = "demo_pkg";
      for (size_t d = 1 + next(4); d > 0; --d) name += std::string("/") + parts[next(3)];
      if (next(4) == 0) name += "/";  // a directory entry
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    if (tree % 10 == 0) {
      std::string deep = "demo_pkg/a";
      for (int d = 0; d < 400; ++d) deep += "/d";
      names.push_back(deep + "/x.py");
      names.push_back(deep);  // a file with the deep path below it
    }
    WheelBuilder b("demo-pkg", "1.0");
    for (const auto& n : names) n.ends_with('/') ? b.add_unrecorded(n, "") : b.add(n, "x\n");
    std::multiset<std::string> want;
    for (const auto& file : names) {
      if (file.ends_with('/')) continue;
      for (const auto& other : names) {  // archive order: the first below is the one named
        const bool below = other.starts_with(file + "/") || other == file + "/";
        if (!below) continue;
        want.insert("installs '" + clip_for_display(file) + "' as a file, and the entry '" + clip_for_display(other) +
                    "' as a directory: installers fail half-way");
        break;
      }
    }
    std::multiset<std::string> got;
    for (const auto& f : check(b))
      if (f.rule == "WC401" && f.message.find("as a directory") != std::string::npos) got.insert(f.message);
    ASSERT_EQ(got, want) << "tree " << tree;
    clashes += want.size();
  }
  EXPECT_GT(clashes, 100u);  // the trees clash often, not only the deep ones
}

// WC307 (a name twice; names one case-insensitive or normalising file system takes for one) and
// RECORD's WC301 (a path listed twice), WC304 (an entry RECORD does not list) and WC305 (a path no
// entry has), against a brute force over random archives: names of a, A, b, é (NFC and NFD) and
// É, some repeated, some unrecorded, rows for absent files and rows listed twice.
TEST(Rules, NameAndRecordTablesAsABruteForceFindsThem) {
  uint64_t seed = 0x307;
  auto next = [&](uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  const char* const parts[] = {"a", "A", "b", "\xc3\xa9", "e\xcc\x81", "\xc3\x89"};
  auto key = [](const std::string& name) {  // as a case-insensitive, normalising file system sees it
    const bool ascii =
        std::all_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    return ascii ? to_lower(name) : casefold_nfc(name);
  };
  using Seen = std::multiset<std::tuple<std::string, std::string, std::string>>;  // rule, message, entry
  size_t seen = 0;
  for (int wheel = 0; wheel < 120; ++wheel) {
    std::vector<std::string> names;
    std::vector<bool> recorded;
    for (size_t n = 1 + next(9); names.size() < n;) {
      std::string name = "demo_pkg/";
      for (size_t k = 1 + next(2); k > 0; --k) name += parts[next(std::size(parts))];
      names.push_back(name + ".py");
      recorded.push_back(next(5) != 0);
      if (next(4) == 0) names.push_back(names.back()), recorded.push_back(next(2) != 0);  // the name again
    }
    std::vector<std::string> extra;  // rows added to RECORD: absent files, or a path again
    for (size_t k = next(3); k > 0; --k)
      extra.push_back(next(2) ? "demo_pkg/gone" + std::to_string(next(3)) + ".py" : names[next(names.size())]);
    std::vector<std::string> rows;  // the paths RECORD lists, in order
    WheelBuilder b("demo-pkg", "1.0");
    for (size_t i = 0; i < names.size(); ++i) recorded[i] ? b.add(names[i], "x\n") : b.add_unrecorded(names[i], "x\n");
    b.edit_record([&](std::vector<std::vector<std::string>>& r) {
      for (const auto& p : extra) r.push_back({p, "", ""});
      for (const auto& row : r) rows.push_back(row[0]);
    });
    Seen got;
    auto keep = [&](const Finding& f) {
      if (f.entry.starts_with("demo_pkg/") && (f.rule == "WC307" || f.rule == "WC304" || f.rule == "WC305" ||
                                               f.message == "RECORD lists this path more than once"))
        got.insert({f.rule, f.message, f.entry});
    };
    for (const auto& f : check(b)) {
      keep(f);
      for (const auto& r : f.repeats) keep(r);
    }
    Seen want;
    std::set<std::string> told_twice;
    for (size_t i = 0; i < names.size(); ++i) {
      const bool again = std::find(names.begin(), names.begin() + i, names[i]) != names.begin() + i;
      if (again && told_twice.insert(names[i]).second)
        want.insert({"WC307", "the archive holds this name more than once", names[i]});
      for (size_t j = 0; j < i; ++j) {
        if (key(names[j]) != key(names[i])) continue;
        if (names[j] != names[i])
          want.insert(
              {"WC307",
               nfc(names[i]) != nfc(names[j])
                   ? "differs only in case from '" + names[j] + "' (they collide on case-insensitive file systems)"
                   : "differs from '" + names[j] +
                         "' only in Unicode normalisation (NFC/NFD; one file on macOS and wherever names are "
                         "normalised)",
               names[i]});
        break;
      }
      if (std::find(rows.begin(), rows.end(), names[i]) == rows.end())
        want.insert({"WC304", "archive entry is not listed in RECORD", names[i]});
    }
    for (size_t r = 0; r < rows.size(); ++r) {
      if (!rows[r].starts_with("demo_pkg/")) continue;
      if (std::find(rows.begin(), rows.begin() + r, rows[r]) != rows.begin() + r)
        want.insert({"WC301", "RECORD lists this path more than once", rows[r]});
      else if (std::find(names.begin(), names.end(), rows[r]) == names.end())
        want.insert({"WC305", "RECORD lists a file the archive lacks", rows[r]});
    }
    ASSERT_EQ(got, want) << "wheel " << wheel;
    seen += want.size();
  }
  EXPECT_GT(seen, 150u);
}

// WC401's case-insensitive pairs ("installs to 'K', which a case-insensitive file system ...
// takes for 'O' (the entry 'E')"), against a brute force over random archives of files and
// directory entries named with a, A, b and e-acute as NFC, NFD and capital, some repeated later: for
// each entry, the first one before it whose key folds alike, when its key differs.
TEST(Rules, CaseFoldedInstallPathsAsABruteForceFindsThem) {
  uint64_t seed = 0xF01D;
  auto next = [&](uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  const char* const parts[] = {"a", "A", "b", "\xc3\xa9", "e\xcc\x81", "\xc3\x89"};
  auto fold = [](const std::string& key) {
    const bool plain = std::all_of(
        key.begin(), key.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80 && !(c >= 'A' && c <= 'Z'); });
    return plain ? key : to_lower(nfc(key));
  };
  size_t pairs = 0;
  for (int wheel = 0; wheel < 200; ++wheel) {
    std::vector<std::string> names;
    for (size_t n = 2 + next(9); names.size() < n;) {
      std::string name = "demo_pkg";
      for (size_t d = 1 + (next(4) == 0); d > 0; --d) {
        name += "/";
        for (size_t k = 1 + (next(3) == 0); k > 0; --k) name += parts[next(std::size(parts))];
      }
      if (next(3) == 0) name += "/";                                         // a directory entry
      if (!names.empty() && next(4) == 0) name = names[next(names.size())];  // or an earlier name again
      names.push_back(name);
    }
    WheelBuilder b("demo-pkg", "1.0");
    for (const auto& n : names) n.ends_with('/') ? b.add_unrecorded(n, "") : b.add(n, "x\n");
    std::multiset<std::pair<std::string, std::string>> want, got;  // message, entry
    auto key_of = [](const std::string& name) { return name.ends_with('/') ? name.substr(0, name.size() - 1) : name; };
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string key = key_of(names[i]);
      for (size_t j = 0; j < i; ++j) {
        const std::string other = key_of(names[j]);
        if (fold(other) != fold(key)) continue;
        if (other != key)
          want.insert({"installs to '" + key + "', which a case-insensitive file system (Windows, macOS) takes for '" +
                           other + "' (the entry '" + names[j] + "')",
                       names[i]});
        break;
      }
    }
    for (const auto& f : check(b))
      for (const Finding& x : [&] {
             std::vector<Finding> all{f};
             all.insert(all.end(), f.repeats.begin(), f.repeats.end());
             return all;
           }())
        if (x.rule == "WC401" && x.entry.starts_with("demo_pkg/") &&
            x.message.find("case-insensitive file system") != std::string::npos)
          got.insert({x.message, x.entry});
    ASSERT_EQ(got, want) << "wheel " << wheel;
    pairs += want.size();
  }
  EXPECT_GT(pairs, 40u);  // the archives pair often
}

// Why a name may not be installed (WC401), component by component: each reason at the first,
// a middle and the last component, and the names that pass.
TEST(Rules, UnsafePathReasons) {
  const uint64_t limit = 4096;
  const std::string long_part(256, 'x'), max_part(255, 'x');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a/b.py", ""},
      {"a/", ""},
      {"a/b/", ""},
      {"a/" + max_part, ""},
      {"a/" + long_part, "path component over 255 bytes"},
      {long_part + "/a", "path component over 255 bytes"},
      {"a//b", "empty path component"},
      {"a//", "empty path component"},
      {"./a", "'.' component"},
      {"a/./b", "'.' component"},
      {"a/.", "'.' component"},
      {"../a", "'..' component escapes the install directory"},
      {"a/../b", "'..' component escapes the install directory"},
      {"a/..", "'..' component escapes the install directory"},
      {"a/...", ""},
      {"a/./../b", "'.' component"},  // the first component refused, whichever it is
      {"a//../b", "empty path component"},
      {"/../a", "absolute path"},                                          // before any component
      {"../caf\xc3\xa9", "'..' component escapes the install directory"},  // UTF-8: the same answers
      {"a//\xc3\xa9/..", "empty path component"},
      {"a/.b", ""},
      {"/a", "absolute path"},
      {"C:a", "drive letter"},
      {"a\\b", "name contains a backslash"},
      {"", "empty name"},
      // The byte checks, which a name of printable ASCII without a backslash passes in one look.
      {std::string("a/b\0.py", 7), "name contains NUL"},
      {std::string("a\n\0", 3), "name contains NUL"},  // NUL first, whatever else
      {"a/\xff.py", "name is not valid UTF-8"},
      {"a/b\x0b.py",
       "name contains U+000B, a line break for Python's str.splitlines(): pip reads RECORD with "
       "it, so the name injects a RECORD row"},
      {"a/\xe2\x80\xa8.py",
       "name contains U+2028, a line break for Python's str.splitlines(): pip reads "
       "RECORD with it, so the name injects a RECORD row"},
      {"a/b\x01.py", "name contains a control character"},
      {"a/b\x7f.py", "name contains a control character"},
      {"a/\x7e\x20.py", ""},
      {"caf\xc3\xa9/\xe2\x80\xa6.py", ""},  // UTF-8 that is no break: é, …
  };
  for (const auto& [name, why] : cases) EXPECT_EQ(unsafe_path_reason(name, limit), why) << name;
  EXPECT_NE(unsafe_path_reason("a/" + max_part, 100), "");  // the whole name over the limit
}

TEST(Rules, CorrectWheelHasNoFindings) {
  auto fs = check(base());
  EXPECT_TRUE(fs.empty()) << testing::dump(fs);
  auto fs2 = check(WheelBuilder("demo", "2.10.0+cu128", "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64")
                       .purelib(false)
                       .add("demo/__init__.py", "")
                       .requires_python(">=3.9"));
  EXPECT_TRUE(fs2.empty()) << testing::dump(fs2);
}

TEST(Rules, WC101BadFilename) {
  auto fs = check(base().filename("demo_pkg-1.0-py3-none.whl"));
  ASSERT_TRUE(first(fs, "WC101")) << testing::dump(fs);
}

TEST(Rules, WC102DistInfo) {
  auto fs = check(base().dist_info_name("other-1.0.dist-info"));
  ASSERT_TRUE(first(fs, "WC102")) << testing::dump(fs);
  EXPECT_NE(first(fs, "WC102")->message.find("names project 'other'"), std::string::npos);
  auto none = check(base().no_metadata().no_wheel_file().no_record());
  EXPECT_NE(testing::dump(none).find("no .dist-info directory"), std::string::npos) << testing::dump(none);
  auto two = check(base().add("extra-1.0.dist-info/METADATA", "Name: extra\n"));
  EXPECT_NE(testing::dump(two).find("several .dist-info"), std::string::npos) << testing::dump(two);
}

TEST(Rules, WC103TagSetMismatch) {
  // The torch 2.10.0 failure: the filename says manylinux_2_28, WHEEL says linux.
  auto fs = check(WheelBuilder("t", "1.0", "cp312-cp312-manylinux_2_28_x86_64")
                      .purelib(false)
                      .add("t/__init__.py", "")
                      .wheel_file("Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp312-cp312-linux_x86_64\n"));
  ASSERT_TRUE(first(fs, "WC103")) << testing::dump(fs);
  EXPECT_EQ(first(fs, "WC103")->entry, "t-1.0.dist-info/WHEEL");
  // A compressed set must be listed expanded.
  auto fs2 = check(WheelBuilder("t", "1.0", "py2.py3-none-any")
                       .add("t/__init__.py", "")
                       .wheel_file("Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py2.py3-none-any\n"));
  ASSERT_TRUE(first(fs2, "WC103")) << testing::dump(fs2);
  EXPECT_EQ(first(fs2, "WC103")->severity, Severity::warning);  // same set, written compressed (as maturin does)
  auto fs3 = check(WheelBuilder("t", "1.0", "py2.py3-none-any")
                       .add("t/__init__.py", "")
                       .wheel_file("Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py2.py3-none-linux_x86_64\n"));
  EXPECT_TRUE(std::any_of(fs3.begin(), fs3.end(), [](const Finding& f) {
    return f.rule == "WC103" && f.severity == Severity::error;
  })) << testing::dump(fs3);
}

TEST(Rules, WC104WheelFile) {
  auto major = check(base().wheel_file("Wheel-Version: 2.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"));
  ASSERT_TRUE(first(major, "WC104"));
  EXPECT_EQ(first(major, "WC104")->severity, Severity::error);
  auto minor = check(base().wheel_file("Wheel-Version: 1.9\nRoot-Is-Purelib: true\nTag: py3-none-any\n"));
  ASSERT_TRUE(first(minor, "WC104"));
  EXPECT_EQ(first(minor, "WC104")->severity, Severity::warning);
  auto purelib = check(base().wheel_file("Wheel-Version: 1.0\nRoot-Is-Purelib: yes\nTag: py3-none-any\n"));
  EXPECT_NE(testing::dump(purelib).find("Root-Is-Purelib is 'yes'"), std::string::npos);
  auto missing = check(base().no_wheel_file());
  EXPECT_NE(testing::dump(missing).find("WHEEL is missing"), std::string::npos) << testing::dump(missing);
}

TEST(Rules, WC105TagsAndContents) {
  auto abi3 = check(WheelBuilder("t", "1.0", "py3-abi3-manylinux_2_17_x86_64").purelib(false).add("t/__init__.py", ""));
  EXPECT_TRUE(first(abi3, "WC105")) << testing::dump(abi3);
  auto ft =
      check(WheelBuilder("t", "1.0", "cp312-cp312t-manylinux_2_17_x86_64").purelib(false).add("t/__init__.py", ""));
  EXPECT_NE(testing::dump(ft).find("free-threaded"), std::string::npos) << testing::dump(ft);
  auto mismatch =
      check(WheelBuilder("t", "1.0", "cp311-cp312-manylinux_2_17_x86_64").purelib(false).add("t/__init__.py", ""));
  EXPECT_TRUE(first(mismatch, "WC105")) << testing::dump(mismatch);
  auto pure_so = check(base().add("demo_pkg/_x.so", std::string("\x7f"
                                                                "ELF",
                                                                4) +
                                                        std::string(60, '\0')));
  ASSERT_TRUE(first(pure_so, "WC105")) << testing::dump(pure_so);
  EXPECT_EQ(first(pure_so, "WC105")->entry, "demo_pkg/_x.so");
  EXPECT_EQ(first(pure_so, "WC105")->severity, Severity::error);
  // NVIDIA's layout: a platform tag but Root-Is-Purelib: true. Installs right, wrong scheme: warning.
  auto nv = check(WheelBuilder("nvidia-x-cu12", "1.0", "py3-none-manylinux2014_x86_64")
                      .add("nvidia/x/lib/libx.so.12", std::string("\x7f"
                                                                  "ELF",
                                                                  4) +
                                                          std::string(60, '\0')));
  ASSERT_TRUE(first(nv, "WC105")) << testing::dump(nv);
  EXPECT_EQ(first(nv, "WC105")->severity, Severity::warning);
  auto suffix = check(WheelBuilder("t", "1.0", "cp311-cp311-manylinux_2_17_x86_64")
                          .purelib(false)
                          .add("t/_c.cpython-312-x86_64-linux-gnu.so", "not really elf"));
  EXPECT_NE(testing::dump(suffix).find("extension module is for cp312"), std::string::npos) << testing::dump(suffix);
  auto ok = check(WheelBuilder("t", "1.0", "cp313-cp313t-manylinux_2_17_x86_64")
                      .purelib(false)
                      .add("t/_c.cpython-313t-x86_64-linux-gnu.so", "x")
                      .add("t/_d.abi3.so", "y"));
  EXPECT_FALSE(first(ok, "WC105")) << testing::dump(ok);
}

TEST(Rules, WC106PlatformTags) {
  auto fs = check(WheelBuilder("t", "1.0", "cp312-cp312-linux_x86_64").purelib(false).add("t/__init__.py", ""));
  ASSERT_TRUE(first(fs, "WC106")) << testing::dump(fs);
  auto mac = check(WheelBuilder("t", "1.0", "cp312-cp312-macosx_11_5_arm64").purelib(false).add("t/__init__.py", ""));
  EXPECT_TRUE(first(mac, "WC106")) << testing::dump(mac);
}

TEST(Rules, WC108LocalVersionOnlyUnderPypiPolicy) {
  auto b = WheelBuilder("t", "1.0+cu128").add("t/__init__.py", "");
  EXPECT_FALSE(first(check(b), "WC108"));
  auto fs = check(b, "pypi");
  ASSERT_TRUE(first(fs, "WC108")) << testing::dump(fs);
  EXPECT_EQ(first(fs, "WC108")->severity, Severity::error);
}

TEST(Rules, WC201AndWC202Metadata) {
  auto fs = check(base().metadata("Metadata-Version: 2.1\nName: other\nVersion: 1.0.1\n"));
  EXPECT_EQ(count_rule(fs, "WC201"), 2) << testing::dump(fs);
  auto equivalent = check(base().metadata("Metadata-Version: 2.1\nName: Demo.Pkg\nVersion: 1.0.0\n"));
  EXPECT_FALSE(first(equivalent, "WC201")) << testing::dump(equivalent);
  auto bad =
      check(base().metadata("Metadata-Version: 9.9\nName: demo-pkg\nName: demo-pkg\nVersion: x.y\nDynamic: Version\n"));
  std::string d = testing::dump(bad);
  for (const char* want : {"Metadata-Version 9.9 has a newer major version", "'Name' appears 2 times",
                           "not a PEP 440 version", "Dynamic may not name"})
    EXPECT_NE(d.find(want), std::string::npos) << want << "\n" << d;
  auto cont = testing::facts_of(base()
                                    .metadata("Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\nLicense: line "
                                              "one\n  line two\nRequires-Dist: a\nRequires-Dist: b\n\nbody text\n")
                                    .build(),
                                base().filename());
  ASSERT_TRUE(cont.metadata);
  EXPECT_EQ(*cont.metadata->get("License"), "line one\n  line two");
  EXPECT_EQ(cont.metadata->get_all("Requires-Dist").size(), 2u);
  EXPECT_EQ(cont.metadata->body, "body text\n");
}

// A WHEEL whose header block is repeated after a blank line: what follows is ignored by installers,
// and the warning names what was lost (Build among it).
TEST(Rules, WC104WheelFileWithABody) {
  auto w =
      check(WheelBuilder("t", "1.0")
                .add("t/__init__.py", "")
                .wheel_file(
                    "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.34.2)\nRoot-Is-Purelib: true\nTag: py3-none-any\n\n"
                    "Wheel-Version: 1.0\nBuild: 7\nTag: py3-none-any\n"));
  auto f = first(w, "WC104");
  ASSERT_TRUE(f) << testing::dump(w);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_NE(f->message.find("Wheel-Version, Build, Tag"), std::string::npos) << f->message;
  EXPECT_FALSE(
      first(check(WheelBuilder("t", "1.0")
                      .add("t/__init__.py", "")
                      .wheel_file("Wheel-Version: 1.0\nGenerator: x\nRoot-Is-Purelib: true\nTag: py3-none-any\n\n\n")),
            "WC104"));
}

TEST(Rules, WC203RequiresPython) {
  auto b = WheelBuilder("t", "1.0", "cp38-cp38-manylinux_2_17_x86_64").purelib(false).add("t/__init__.py", "");
  EXPECT_TRUE(first(check(WheelBuilder(b).requires_python(">=3.10")), "WC203"));
  EXPECT_FALSE(first(check(WheelBuilder(b).requires_python(">=3.8.1")), "WC203"));
  EXPECT_TRUE(
      first(check(WheelBuilder("t", "1.0", "py2-none-any").add("t/__init__.py", "").requires_python(">=3")), "WC203"));
  auto partial = check(WheelBuilder("t", "1.0", "py2.py3-none-any").add("t/__init__.py", "").requires_python(">=3.6"));
  ASSERT_TRUE(first(partial, "WC203")) << testing::dump(partial);
  EXPECT_EQ(first(partial, "WC203")->severity, Severity::warning);
  // cp38-abi3 installs on every CPython from 3.8: Requires-Python >=3.11,<3.15 leaves 3.11-3.14.
  auto abi3 = WheelBuilder("t", "1.0", "cp38-abi3-manylinux_2_17_x86_64").purelib(false).add("t/__init__.py", "");
  auto narrowed = check(WheelBuilder(abi3).requires_python(">=3.11,<3.15"));
  EXPECT_FALSE(first(narrowed, "WC203")) << testing::dump(narrowed);
  EXPECT_TRUE(first(check(WheelBuilder(abi3).requires_python("<3.8")), "WC203"));
}

TEST(Rules, WC301To306Record) {
  auto missing = check(base().no_record());
  EXPECT_TRUE(first(missing, "WC301")) << testing::dump(missing);
  auto csv = check(base().record_text("demo_pkg/__init__.py,sha256=abc\n\"unterminated,\n"));
  EXPECT_TRUE(first(csv, "WC301")) << testing::dump(csv);
  auto hash = check(base().edit_record([](auto& rows) { rows[0][1] = testing::sha256_record("other"); }));
  ASSERT_TRUE(first(hash, "WC302")) << testing::dump(hash);
  EXPECT_EQ(first(hash, "WC302")->entry, "demo_pkg/__init__.py");
  auto size = check(base().edit_record([](auto& rows) { rows[0][2] = "999"; }));
  EXPECT_TRUE(first(size, "WC303")) << testing::dump(size);
  auto unlisted = check(base().add_unrecorded("demo_pkg/hidden.py", "x"));
  ASSERT_TRUE(first(unlisted, "WC304")) << testing::dump(unlisted);
  EXPECT_EQ(first(unlisted, "WC304")->entry, "demo_pkg/hidden.py");
  auto ghost = check(base().edit_record([](auto& rows) {
    rows.push_back({"demo_pkg/ghost.py", testing::sha256_record("g"), "1"});
  }));
  EXPECT_TRUE(first(ghost, "WC305")) << testing::dump(ghost);
  auto md5 = check(base().edit_record([](auto& rows) { rows[0][1] = "md5=1B2M2Y8AsgTpgAmY7PhCfg"; }));
  EXPECT_TRUE(first(md5, "WC306")) << testing::dump(md5);
  auto nohash = check(base().edit_record([](auto& rows) { rows[0][1] = ""; }));
  EXPECT_TRUE(first(nohash, "WC306")) << testing::dump(nohash);
}

TEST(Rules, RecordWithQuotedPathsAndSha512) {
  // Python's csv module quotes fields holding commas or quotes; the RECORD reader must undo it.
  auto b = WheelBuilder("demo-pkg", "1.0").add("demo_pkg/__init__.py", "").add("demo_pkg/a,b \"c\".txt", "odd\n");
  EXPECT_TRUE(check(b).empty()) << testing::dump(check(b));
  // sha512 rows are verified with a second read of the entry.
  auto good512 = check(base().edit_record([](auto& rows) {
    rows[0][1] = "sha512=" +
                 std::string("e73veyKgykOKZRFOeqVV-RiHar0CPb8GFYkM-jCLUlHBkx-rU_sUNgozT0yN7lCJ48E3W_3uNVShst_MuAk21g");
  }));
  EXPECT_FALSE(first(good512, "WC302")) << testing::dump(good512);
  auto bad512 = check(base().edit_record([](auto& rows) { rows[0][1] = "sha512=AAAA"; }));
  EXPECT_TRUE(first(bad512, "WC302")) << testing::dump(bad512);
  // The algorithm's name in any case (hashlib's names are case-insensitive): the digest is taken.
  auto bad384 = check(base().edit_record([](auto& rows) { rows[0][1] = "SHA384=" + std::string(64, 'A'); }));
  ASSERT_TRUE(first(bad384, "WC302")) << testing::dump(bad384);
  EXPECT_NE(first(bad384, "WC302")->message.find("sha384 is"), std::string::npos) << testing::dump(bad384);
}

TEST(Rules, WC701AndWC706Policy) {
  auto cruft = check(base().add("demo_pkg/__pycache__/x.cpython-312.pyc", "b"));
  ASSERT_TRUE(first(cruft, "WC706"));
  EXPECT_EQ(first(cruft, "WC706")->severity, Severity::warning);
  auto strict = check(base().add("demo_pkg/__pycache__/x.cpython-312.pyc", "b").add("tests/test_x.py", ""), "strict");
  EXPECT_EQ(count_rule(strict, "WC706"), 2) << testing::dump(strict);
  EXPECT_TRUE(has_errors(strict));
  testing::TempDir tmp;
  std::string pol = R"({"extends": "default", "limits": {"max_wheel_bytes": 100}})";
  testing::write_file(tmp.file("p.json"), std::vector<uint8_t>(pol.begin(), pol.end()));
  EXPECT_TRUE(first(check(base(), tmp.file("p.json")), "WC701"));
}

// issue 31: PyTorch's release check counts pip's decimal MB, so the pytorch policy's ceiling is
// 850,000,000 bytes, not 850 MiB: a wheel between the two fails there, and the message says the unit.
TEST(Rules, WC701SaysTheUnitOfTheLimit) {
  auto b = base();
  auto bytes = b.build();
  MemorySource src(b.filename(), bytes);
  WheelFacts f = analyze_wheel(src, analyze_options_for(load_policy("pytorch")));
  f.file_size = 860'000'000;  // 820 MiB: under 850 MiB, over 850 MB
  auto torch = check_wheel(f, load_policy("pytorch")).findings;
  EXPECT_TRUE(testing::says(torch,
                            "wheel is 860000000 bytes, over the policy's limit of 850000000 bytes (850 MB, "
                            "decimal, as pip counts)"))
      << testing::dump(torch);
  f.file_size = 849'999'999;
  EXPECT_FALSE(testing::has_rule(check_wheel(f, load_policy("pytorch")).findings, "WC701"));
  f.file_size = 104'857'601;
  EXPECT_TRUE(testing::says(check_wheel(f, load_policy("pypi")).findings, "limit of 104857600 bytes (100 MiB)"));
}

}  // namespace
}  // namespace wc

namespace wc {
namespace {

// check-wheel-contents' layout checks: WC211 (W004) modules at unreachable paths, WC212 (W009)
// several top-level names, WC213 (W010) a top-level directory with no module or library. Judged
// with every one of them on, then with the shipped default (WC211/WC212 off: noisy on the real
// corpus) and strict.
TEST(Rules, LayoutChecks) {
  auto with_all = [&](const std::vector<uint8_t>& zip, const std::string& name) {
    auto f = testing::facts_of(zip, name);
    Policy p = load_policy("default");
    for (const char* r : {"WC211", "WC212", "WC213"}) p.severity[r] = Severity::warning;
    return check_wheel(f, p).findings;
  };
  auto one_package = WheelBuilder("demo", "1.0")
                         .add("demo/__init__.py", "")
                         .add("demo/sub/mod.py", "")
                         .add("demo-stubs/__init__.pyi", "")
                         .add("demo/data/table.csv", "a,b\n")
                         .add("demo/_native.cpython-312-x86_64-linux-gnu.so", "x");
  auto fs = with_all(one_package.build(), one_package.filename());
  EXPECT_FALSE(testing::has_rule(fs, "WC211")) << testing::dump(fs);
  EXPECT_FALSE(testing::has_rule(fs, "WC213")) << testing::dump(fs);
  EXPECT_TRUE(testing::says(fs, "WC212 [warning] : 2 top-level names in site-packages (demo, demo-stubs)"))
      << testing::dump(fs);

  auto messy = WheelBuilder("messy", "1.0", "cp312-cp312-manylinux_2_17_x86_64")
                   .purelib(false)
                   .add("messy/__init__.py", "")
                   .add("messy/my-scripts/run.py", "")                // directory not an identifier
                   .add("messy/hook-messy.py", "")                    // module name not an identifier
                   .add("messy/lib/libfoo-1.2.so", "x")               // a library, not a module: fine
                   .add("share/messy/icon.png", "png")                // top-level data directory
                   .add("messy.libs/libbar-abcd1234.so.1", "x")       // auditwheel's vendored libraries: fine
                   .add("messy/class/x.py", "")                       // a keyword directory
                   .add("messy-1.0.data/purelib/messy/a/b/c.py", "")  // lands at messy/a/b/c.py: fine
                   .add("messy-1.0.data/platlib/messy/x-y/z.py", "")  // lands at messy/x-y/z.py
                   .add("messy-1.0.data/scripts/run-me.py", "");      // installed elsewhere: not judged
  fs = with_all(messy.build(), messy.filename());
  EXPECT_TRUE(
      testing::says(fs, "WC211 [warning] messy/my-scripts/run.py: 4 Python modules at paths import cannot reach"))
      << testing::dump(fs);
  EXPECT_TRUE(testing::says(fs, "messy/hook-messy.py")) << testing::dump(fs);
  EXPECT_TRUE(testing::says(fs, "messy/class/x.py")) << testing::dump(fs);
  EXPECT_TRUE(testing::says(fs, "messy/x-y/z.py")) << testing::dump(fs);
  EXPECT_FALSE(testing::says(fs, "a/b/c.py")) << testing::dump(fs);
  EXPECT_FALSE(testing::says(fs, "libfoo-1.2.so")) << testing::dump(fs);
  EXPECT_TRUE(testing::says(fs, "WC213 [warning] share/: top-level directory in site-packages with no Python module"))
      << testing::dump(fs);
  EXPECT_FALSE(testing::says(fs, "messy.libs/:")) << testing::dump(fs);
  EXPECT_TRUE(testing::says(fs, "2 top-level names in site-packages (messy, share)")) << testing::dump(fs);

  // Shipped severities: default warns only for WC213; strict warns for WC211 and fails WC213.
  auto dflt = testing::findings_of(messy.build(), messy.filename());
  EXPECT_FALSE(testing::has_rule(dflt, "WC211"));
  EXPECT_FALSE(testing::has_rule(dflt, "WC212"));
  EXPECT_TRUE(testing::says(dflt, "WC213 [warning]")) << testing::dump(dflt);
  auto strict = testing::findings_of(messy.build(), messy.filename(), "strict");
  EXPECT_TRUE(testing::says(strict, "WC211 [warning]")) << testing::dump(strict);
  EXPECT_TRUE(testing::says(strict, "WC213 [error]")) << testing::dump(strict);

  // Modules of one directory in a row: each is judged, whether the directory is importable or not.
  auto runs = WheelBuilder("runs", "1.0")
                  .add("runs/__init__.py", "")
                  .add("runs/bad-dir/a.py", "")
                  .add("runs/bad-dir/b.py", "")
                  .add("runs/good/c.py", "")
                  .add("runs/good/if.py", "")
                  .add("runs/good/d.py", "");
  fs = with_all(runs.build(), runs.filename());
  EXPECT_TRUE(testing::says(fs,
                            "WC211 [warning] runs/bad-dir/a.py: 3 Python modules at paths import cannot reach (a "
                            "directory or module name that is not an identifier, or a keyword): runs/bad-dir/a.py, "
                            "runs/bad-dir/b.py, runs/good/if.py"))
      << testing::dump(fs);
}

// An entry WC401 refuses lands nowhere: no layout finding repeats it (make demo's traversal
// sample got WC213 "top-level directory ../" beside its WC401).
TEST(Rules, LayoutSkipsEntriesRefusedAsUnsafe) {
  auto w = WheelBuilder("trav", "1.0")
               .add("trav/__init__.py", "")
               .add("../evil/payload.txt", "x")
               .add("trav/../../etc/x.py", "")
               .add("/abs/readme.txt", "x");
  auto fs = testing::findings_of(w.build(), w.filename(), "strict");
  EXPECT_TRUE(testing::says(fs, "WC401 [error] ../evil/payload.txt: '..' component")) << testing::dump(fs);
  EXPECT_TRUE(testing::says(fs, "WC401 [error] /abs/readme.txt: absolute path")) << testing::dump(fs);
  for (const char* r : {"WC211", "WC212", "WC213", "WC215", "WC216"})
    EXPECT_FALSE(testing::has_rule(fs, r)) << r << "\n" << testing::dump(fs);
  // One WC401 per refused entry: not a second one for where Windows would put its '..'.
  EXPECT_FALSE(testing::says(fs, "ends in a dot or a space")) << testing::dump(fs);
}

// WC706 matches where an entry installs as well as its archive path (issue 31): strict's tests/**
// ban is not bypassed through pkg.data/platlib/; .data schemes outside site-packages are not
// mapped, and a nested tests/ stays allowed. `.pyo` is bytecode to the default policy as `.pyc` is.
TEST(Rules, WC706ForbidGlobsMatchInstallPaths) {
  auto wheel = WheelBuilder("demo-pkg", "1.0", "cp312-cp312-manylinux_2_17_x86_64")
                   .purelib(false)
                   .add("demo_pkg/__init__.py", "")
                   .add("demo_pkg-1.0.data/platlib/tests/test_a.py", "a = 1\n")
                   .add("demo_pkg-1.0.data/purelib/tests/test_b.py", "b = 1\n")
                   .add("demo_pkg-1.0.data/data/tests/c.txt", "c\n")
                   .add("demo_pkg/tests/test_d.py", "d = 1\n");
  auto strict = check(wheel, "strict");
  EXPECT_TRUE(testing::says(strict,
                            "WC706 [error] demo_pkg-1.0.data/platlib/tests/test_a.py: installs to 'tests/test_a.py', "
                            "which matches forbidden pattern 'tests/**'"))
      << testing::dump(strict);
  EXPECT_TRUE(testing::says(strict, "WC706 [error] demo_pkg-1.0.data/purelib/tests/test_b.py: installs to"))
      << testing::dump(strict);
  EXPECT_FALSE(testing::says(strict, "data/tests/c.txt: installs")) << testing::dump(strict);
  EXPECT_FALSE(testing::says(strict, "demo_pkg/tests/test_d.py")) << testing::dump(strict);
  EXPECT_EQ(count_rule(strict, "WC706"), 2) << testing::dump(strict);
  // The archive path still matches as before, in the words it had.
  auto top = check(base().add("tests/test_e.py", "e = 1\n"), "strict");
  EXPECT_TRUE(testing::says(top, "WC706 [error] tests/test_e.py: matches forbidden pattern 'tests/**'"))
      << testing::dump(top);
  EXPECT_FALSE(first(check(wheel), "WC706")) << "default has no tests/** ban";

  auto pyo = check(base().add("demo_pkg/mod.pyo", "\x03\xf3\r\n").add("demo_pkg/mod.pyc", "\x03\xf3\r\n"));
  EXPECT_TRUE(testing::says(pyo, "WC706 [warning] demo_pkg/mod.pyo: matches forbidden pattern '**/*.pyo'"))
      << testing::dump(pyo);
  EXPECT_TRUE(testing::says(pyo, "WC706 [warning] demo_pkg/mod.pyc: matches forbidden pattern '**/*.pyc'"))
      << testing::dump(pyo);
  EXPECT_FALSE(first(check(base().add("demo_pkg/mod.py", "x = 1\n")), "WC706"));
}

// The layout rules of check-wheel-contents' other checks (tests/layout_peer_test.cc holds the
// peer's cases): their findings' words and entries, and the shipped severities (off in default,
// warnings in strict).
TEST(Rules, LayoutChecksOfTheTopLevel) {
  auto messy = WheelBuilder("messy", "1.0")
                   .add("messy/__init__.py", "import os\n")
                   .add("messy/copy.py", "import os\n")  // WC214 with messy/__init__.py
                   .add("messy/empty_a.py", "")          // empty files are exempt
                   .add("messy/empty_b.py", "")
                   .add("README.md", "# messy\n")          // WC215
                   .add("messy.pth", "messy\n")            // a .pth belongs there
                   .add("docs/index.md", "# docs\n")       // WC216 (and WC213)
                   .add("__init__.py", "x = 2\n")          // WC217
                   .add("has-hyphen.py", "x = 3\n")        // WC211 at the top
                   .add("messy/extra.ext.py", "x = 4\n");  // WC211: binds "extra.ext"
  auto strict = check(messy, "strict");
  EXPECT_FALSE(first(strict, "WC214")) << "off in strict too (calibration)\n" << testing::dump(strict);
  Policy with_dups = load_policy("strict");
  with_dups.severity["WC214"] = Severity::warning;
  auto dups = check_wheel(testing::facts_of(messy.build(), messy.filename()), with_dups).findings;
  EXPECT_TRUE(testing::says(dups,
                            "WC214 [warning] messy/__init__.py: 2 files with the same content: "
                            "messy/__init__.py, messy/copy.py"))
      << testing::dump(dups);
  EXPECT_FALSE(testing::says(dups, "empty_a")) << testing::dump(dups);
  // Ten sets are named, the rest summed up.
  auto many = WheelBuilder("many", "1.0").add("many/__init__.py", "");
  for (int i = 0; i < 12; ++i)
    for (const char* copy : {"a", "b"})
      many.add("many/" + std::string(copy) + std::to_string(i) + ".py", "x = " + std::to_string(i) + "\n");
  auto sets = check_wheel(testing::facts_of(many.build(), many.filename()), with_dups).findings;
  EXPECT_EQ(count_rule(sets, "WC214"), 11) << testing::dump(sets);
  EXPECT_TRUE(testing::says(sets, "WC214 [warning] : and 2 more sets of files with the same content"))
      << testing::dump(sets);
  EXPECT_TRUE(testing::says(strict, "WC215 [warning] README.md: 1 file at the top of site-packages"))
      << testing::dump(strict);
  EXPECT_FALSE(testing::says(strict, "messy.pth")) << testing::dump(strict);
  EXPECT_TRUE(testing::says(strict, "WC216 [warning] docs/: common top-level name in site-packages: docs/"))
      << testing::dump(strict);
  EXPECT_TRUE(testing::says(strict, "WC217 [warning] __init__.py: __init__.py at the top of site-packages"))
      << testing::dump(strict);
  EXPECT_TRUE(testing::says(strict, "WC211 [warning] has-hyphen.py: 2 Python modules at paths import cannot reach"))
      << testing::dump(strict);
  EXPECT_TRUE(testing::says(strict, "messy/extra.ext.py")) << testing::dump(strict);
  EXPECT_FALSE(first(strict, "WC218")) << testing::dump(strict);
  auto dflt = check(messy);
  for (const char* r : {"WC211", "WC214", "WC215", "WC216", "WC217", "WC218"})
    EXPECT_FALSE(first(dflt, r)) << r << " is off in default\n" << testing::dump(dflt);

  auto empty = check(WheelBuilder("hollow", "1.0"), "strict");
  EXPECT_TRUE(testing::says(empty, "WC218 [warning] : the wheel is empty: no file beside its dist-info"))
      << testing::dump(empty);
  auto scripts_only = check(WheelBuilder("hollow", "1.0").add("hollow-1.0.data/scripts/run", "#!/bin/sh\n"), "strict");
  EXPECT_TRUE(testing::says(scripts_only, "WC218 [warning] : the wheel installs nothing into site-packages"))
      << testing::dump(scripts_only);
  EXPECT_FALSE(first(check(base(), "strict"), "WC218"));
  // A metapackage (nothing but Requires-Dist, as NVIDIA's cuda-toolkit) installs its dependencies.
  auto meta = check(WheelBuilder("hollow", "1.0").requires_dist("nvidia-cublas>=13"), "strict");
  EXPECT_FALSE(first(meta, "WC218")) << testing::dump(meta);
}

// A wheel of many entries is judged with its RECORD and content rule families on a second
// thread: the verdict is the one thread's, findings and waived findings in the same order and the
// install-set rules' places (at, waived_at) the same. Findings come from both threads' families,
// and the run at -j 2 (which splits a single wheel of 20,000 entries) reports as -j 1 does.
TEST(Rules, AManyEntryWheelIsJudgedOnTwoThreadsAsOnOne) {
  WheelBuilder w("many", "1.0", "py3-none-any");
  for (int i = 0; i < 20050; ++i) w.add("many/d" + std::to_string(i / 1000) + "/m" + std::to_string(i) + ".py", "");
  w.add("many/aux.py", "x = 1\n")  // WC401: a Windows device name (archive, this thread)
      .add("many/Case.py", "")
      .add("many/case.py", "")                            // WC401: one file where case folds (archive)
      .add("share/readme.txt", "text\n")                  // WC213: a directory without code (content, aside)
      .add("many/bad-dir/x.py", "")                       // WC211 (content, turned on below)
      .add_unrecorded("many/stray.py", "not in RECORD");  // WC304 (record, aside)
  const auto zip = w.build();
  WheelFacts f = testing::facts_of(zip, w.filename());
  Policy p = load_policy("default");
  p.limits.max_entries = 1000000;
  p.severity["WC211"] = Severity::warning;
  p.waivers.push_back({"WC401", "many/case.py", "a test waiver"});    // waived on this thread
  p.waivers.push_back({"WC307", "many/case.py", "an aside waiver"});  // waived on the other
  const AloneVerdict one = judge_alone(f, p, false), two = judge_alone(f, p, true);
  auto text = [](const AloneVerdict& v) {
    std::vector<std::string> out;
    for (const auto& x : v.findings) out.push_back(x.rule + " " + x.entry + ": " + x.message);
    for (const auto& x : v.waived) out.push_back("waived " + x.finding.rule + " " + x.finding.entry + ": " + x.reason);
    for (size_t k = 0; k < v.at.size(); ++k)
      out.push_back("at " + std::to_string(v.at[k]) + " " + std::to_string(v.waived_at[k]));
    return out;
  };
  const std::string all = join(text(one), "\n");
  for (const char* want : {"WC401 many/aux.py:", "WC213 share/:", "WC211 many/bad-dir/x.py:", "WC304 many/stray.py:",
                           "waived WC307 many/case.py: an aside waiver", "waived WC401 many/case.py: a test waiver"})
    EXPECT_NE(all.find(want), std::string::npos) << want << "\n" << all;
  EXPECT_TRUE(two.in_set);
  EXPECT_EQ(text(two), text(one));

  testing::TempDir dir;
  {
    std::ofstream(dir.file(w.filename()), std::ios::binary)
        .write(reinterpret_cast<const char*>(zip.data()), zip.size());
  }
  auto run = [&](unsigned jobs) {
    CheckRequest req;
    req.targets = {dir.file(w.filename())};
    req.jobs = jobs;
    std::vector<std::string> out;
    for (const auto& item : run_check(req, p).items) {
      for (const auto& x : item.findings) out.push_back(x.rule + " " + x.entry + ": " + x.message);
      for (const auto& x : item.waived) out.push_back("waived " + x.finding.rule + " " + x.finding.entry);
    }
    return out;
  };
  // Its RECORD is large enough for -j 2 to parse it beside the read of the entries.
  const EntryFacts* record = f.find_entry(f.dist_info + "/RECORD");
  ASSERT_TRUE(record);
  EXPECT_GE(record->size, 1u << 20);
  const auto j1 = run(1);
  EXPECT_NE(join(j1, "\n").find("WC304 many/stray.py"), std::string::npos) << join(j1, "\n");
  EXPECT_EQ(run(2), j1);

  // A row naming sha512 (a wrong one): the read must digest that entry with sha512 too, so the
  // RECORD is parsed before it at any -j, and WC302 says the digest differs.
  w.edit_record([](std::vector<std::vector<std::string>>& rows) {
    for (auto& row : rows)
      if (row[0] == "many/aux.py") row[1] = "sha512=" + std::string(86, 'A');
  });
  const auto zip512 = w.build();
  {
    std::ofstream(dir.file(w.filename()), std::ios::binary)
        .write(reinterpret_cast<const char*>(zip512.data()), zip512.size());
  }
  const auto k1 = run(1);
  EXPECT_NE(join(k1, "\n").find("WC302 many/aux.py: sha512 is"), std::string::npos) << join(k1, "\n");
  EXPECT_EQ(run(2), k1);

  // The same row with the algorithm's name quoted: csv (and parse_record) read `"sha512"=AAA...` as
  // sha512=AAA..., though "512=" is nowhere in the text.
  std::vector<std::vector<std::string>> rows;
  w.edit_record([&](std::vector<std::vector<std::string>>& r) { rows = r; });
  (void)w.build();
  std::string raw;
  for (const auto& r : rows)
    raw += r[0] + "," + (r[0] == "many/aux.py" ? "\"sha512\"=" + std::string(86, 'A') : r[1]) + "," + r[2] + "\r\n";
  ASSERT_EQ(raw.find("512="), std::string::npos);
  const auto quoted = w.record_text(raw).build();
  {
    std::ofstream(dir.file(w.filename()), std::ios::binary)
        .write(reinterpret_cast<const char*>(quoted.data()), quoted.size());
  }
  const auto q1 = run(1);
  EXPECT_NE(join(q1, "\n").find("WC302 many/aux.py: sha512 is"), std::string::npos) << join(q1, "\n");
  EXPECT_EQ(run(2), q1);
}

// A read that fails at an entry after its RECORD was parsed beside it (-j 2, a RECORD over 1 MiB)
// keeps the RECORD, as the one-thread read, which parses it first, does.
TEST(Rules, ARecordParsedBesideAFailedReadIsKept) {
  WheelBuilder w("many", "1.0", "py3-none-any");
  for (int i = 0; i < 20050; ++i) w.add("many/d" + std::to_string(i / 1000) + "/m" + std::to_string(i) + ".py", "x");
  const auto zip = w.build();
  // The read of one entry's data (it starts at the entry's data offset) fails.
  class FailingSource : public MemorySource {
   public:
    FailingSource(std::vector<uint8_t> bytes, uint64_t at)
        : MemorySource("many-1.0-py3-none-any.whl", std::move(bytes)), at_(at) {}
    size_t read_at(uint64_t off, void* buf, size_t n) override {
      if (off == at_) throw IoError("many-1.0-py3-none-any.whl: a test's read error");
      return MemorySource::read_at(off, buf, n);
    }

   private:
    uint64_t at_;
  };
  MemorySource plain("many-1.0-py3-none-any.whl", zip);
  const ZipIndex idx = read_zip_index(plain);
  uint64_t at = 0;
  for (const auto& z : idx.entries)
    if (z.name == "many/d7/m7777.py") at = z.data_offset;
  ASSERT_NE(at, 0u);
  for (unsigned threads : {1u, 2u}) {
    FailingSource src(zip, at);
    AnalyzeOptions opt = analyze_options_for(load_policy("default"));
    opt.threads = threads;
    const WheelFacts f = analyze_wheel(src, opt);
    EXPECT_FALSE(f.readable()) << threads;  // the read error is the wheel's WC404
    ASSERT_TRUE(f.record) << threads;
    EXPECT_EQ(f.record->rows.size(), 20053u) << threads;  // 20,050 modules, METADATA, WHEEL, RECORD
    const EntryFacts* record = f.find_entry(f.dist_info + "/RECORD");
    ASSERT_TRUE(record);
    EXPECT_GE(record->size, 1u << 20);
  }
}

}  // namespace
}  // namespace wc
