// WC205: the core metadata PyPI's upload rejects (issue 31). Cases ported from the peers' tests name
// the peer test; the verdict is the peer's (warehouse's TestValidation ran its checks on the same
// values; packaging's tests on the same expressions). The wheels are built here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "policy/policy.h"
#include "rules/release/release_set.h"
#include "support/test_support.h"
#include "wheel/license_expression.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using namespace wc::testing;

std::string meta(const std::string& extra, const std::string& mv = "2.4") {
  return "Metadata-Version: " + mv + "\nName: demo\nVersion: 1.0\nSummary: a demo\n" + extra;
}

WheelBuilder demo(const std::string& extra, const std::string& mv = "2.4") {
  WheelBuilder w("demo", "1.0");
  w.metadata(meta(extra, mv)).add("demo/__init__.py", "");
  return w;
}

std::vector<Finding> pypi(const WheelBuilder& w) { return findings_of(w.build(), w.filename(), "pypi"); }

// The WC205 findings only (the rest of the verdict is other rules' business).
std::vector<Finding> wc205(const WheelBuilder& w, const std::string& policy = "pypi") {
  std::vector<Finding> out;
  for (auto& f : findings_of(w.build(), w.filename(), policy))
    if (f.rule == "WC205") out.push_back(f);
  return out;
}

TEST(PypiMetadata, OffByDefaultErrorUnderPypiWarningUnderStrict) {
  auto w = demo("License: MIT\nLicense-Expression: MIT\n");
  EXPECT_TRUE(wc205(w, "default").empty());
  auto p = wc205(w, "pypi");
  ASSERT_EQ(p.size(), 1u) << dump(p);
  EXPECT_EQ(p[0].severity, Severity::error);
  auto s = wc205(w, "strict");
  ASSERT_EQ(s.size(), 1u) << dump(s);
  EXPECT_EQ(s[0].severity, Severity::warning);
}

// warehouse tests/unit/packaging? no: PyPI's License/License-Expression rule (PEP 639 forbids both).
TEST(PypiMetadata, LicenseBesideLicenseExpression) {
  EXPECT_TRUE(says(pypi(demo("License: MIT\nLicense-Expression: MIT\n")), "License and License-Expression are both"));
  EXPECT_TRUE(wc205(demo("License-Expression: MIT\n")).empty());
  EXPECT_TRUE(wc205(demo("License: MIT license, see LICENSE\n")).empty());
}

// packaging tests/test_licenses.py (test_invalid_spdx_with_or_licenseref_forms,
// test_licenseref_plus_suffix_is_invalid) and canonicalize_license_expression's doctests.
TEST(PypiMetadata, LicenseExpressionAgainstTheSpdxList) {
  EXPECT_TRUE(wc205(demo("License-Expression: mit and (apache-2.0 or bsd-2-clause)\n")).empty());
  EXPECT_TRUE(wc205(demo("License-Expression: GPL-3.0-only WITH Classpath-exception-2.0 OR BSD-3-Clause\n")).empty());
  EXPECT_TRUE(wc205(demo("License-Expression: LicenseRef-Proprietary\n")).empty());
  for (const char* bad : {"Use-it-after-midnight", "MIT WITH Classpath-exception-2.0 WITH GCC-exception-3.1",
                          "(MIT) WITH Classpath-exception-2.0", "(MIT OR Apache-2.0) WITH Classpath-exception-2.0",
                          "LicenseRef-", "LicenseRef-Foo+", "(mit", "MIT AND", "MIT OR Apache"}) {
    auto fs = wc205(demo(std::string("License-Expression: ") + bad + "\n"));
    ASSERT_EQ(fs.size(), 1u) << bad << "\n" << dump(fs);
    EXPECT_TRUE(says(fs, "is not a valid SPDX expression (SPDX list 3.27.0)")) << dump(fs);
  }
  EXPECT_TRUE(says(wc205(demo("License-Expression: MIT OR Apache\n")), "Unknown license: 'apache'"));
}

TEST(LicenseExpression, CanonicalFormsAndReasons) {
  Policy p = load_policy("default");
  const auto& m = p.metadata;
  ASSERT_FALSE(m.spdx_licenses.empty());
  auto canon = [&](const char* e) {
    auto c = canonicalize_license_expression(e, m.spdx_licenses, m.spdx_exceptions);
    return c.canonical ? *c.canonical : "ERR " + c.error;
  };
  EXPECT_EQ(canon("mit"), "MIT");
  EXPECT_EQ(canon("mit and (apache-2.0 or bsd-2-clause)"), "MIT AND (Apache-2.0 OR BSD-2-Clause)");
  EXPECT_EQ(canon("((mit))"), "((MIT))");
  EXPECT_EQ(canon("licenseref-Foo or LICENSEREF-FOO"), "LicenseRef-Foo OR LicenseRef-Foo");
  EXPECT_EQ(canon("gpl-2.0+"), "GPL-2.0+");  // packaging keeps '+' after a listed id
  EXPECT_EQ(canon("(mit"), "ERR Invalid license expression: '(mit'");
  EXPECT_EQ(canon(""), "ERR Invalid license expression: ''");
  EXPECT_EQ(canon("Use-it-after-midnight"), "ERR Unknown license: 'use-it-after-midnight'");
  EXPECT_EQ(canon("MIT WITH nope"), "ERR Unknown license exception: 'nope'");
  EXPECT_EQ(canon("LicenseRef-a_b"), "ERR Invalid licenseref: 'licenseref-a_b'");
  EXPECT_EQ(canon("DocumentRef-x:LicenseRef-y"), "ERR Unknown license: 'documentref-x:licenseref-y'");
  std::string deep(200, '('), deeper(201, '(');
  EXPECT_NE(canon((deep + "mit" + std::string(200, ')')).c_str()).substr(0, 3), "ERR");
  EXPECT_EQ(canon((deeper + "mit" + std::string(201, ')')).c_str()).substr(0, 3), "ERR");
}

// packaging.metadata's _process_license_files; the existence check is PEP 639's (PyPI rejects a
// License-File the wheel lacks).
TEST(PypiMetadata, LicenseFilePathsAndPresence) {
  auto ok = demo("License-File: LICENSE\nLicense-File: licenses/NOTICE.txt\n");
  ok.add("demo-1.0.dist-info/licenses/LICENSE", "x").add("demo-1.0.dist-info/licenses/licenses/NOTICE.txt", "y");
  EXPECT_TRUE(wc205(ok).empty()) << dump(wc205(ok));
  auto missing = demo("License-File: LICENSE\n");
  missing.add("demo-1.0.dist-info/LICENSE", "x");  // the pre-PEP 639 place
  EXPECT_TRUE(says(wc205(missing), "License-File 'LICENSE' is not in the wheel at demo-1.0.dist-info/licenses/LICENSE"))
      << dump(wc205(missing));
  // Metadata-Version 2.1 (setuptools before PEP 639) put them at the top of .dist-info: not judged.
  auto old = demo("License-File: LICENSE\n", "2.1");
  old.add("demo-1.0.dist-info/LICENSE", "x");
  EXPECT_TRUE(wc205(old).empty()) << dump(wc205(old));
  for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{{"../LICENSE", "contains '..'"},
                                                                                  {"LICENSE*", "contains '*'"},
                                                                                  {"/LICENSE", "is not relative"},
                                                                                  {"C:/LICENSE", "is not relative"},
                                                                                  {"licenses\\LICENSE", "uses '\\'"}}) {
    auto fs = wc205(demo("License-File: " + path + "\n"));
    std::string shown = path == "licenses\\LICENSE" ? "licenses\\\\LICENSE" : path;  // a report escapes '\'
    EXPECT_TRUE(says(fs, "License-File '" + shown + "' " + why)) << path << "\n" << dump(fs);
  }
}

// warehouse tests/unit/forklift/test_metadata.py: test_valid_classifier, test_invalid_classifier,
// test_deprecated_classifiers_with_replacement, test_deprecated_classifiers_no_replacement.
TEST(PypiMetadata, TroveClassifiers) {
  EXPECT_TRUE(wc205(demo("Classifier: Topic :: Utilities\n")).empty());
  EXPECT_TRUE(says(wc205(demo("Classifier: Something :: Or :: Other\n")),
                   "classifier 'Something :: Or :: Other' is not a trove classifier"));
  EXPECT_TRUE(says(wc205(demo("Classifier: Natural Language :: Ukranian\n")),
                   "classifier 'Natural Language :: Ukranian' is deprecated; use Natural Language :: Ukrainian"));
  auto aol = wc205(demo("Classifier: Topic :: Communications :: Chat :: AOL Instant Messenger\n"));
  ASSERT_EQ(aol.size(), 1u) << dump(aol);
  EXPECT_TRUE(says(aol, "is deprecated (trove-classifiers")) << dump(aol);
  EXPECT_TRUE(says(wc205(demo("Classifier: Private :: Do Not Upload\n")), "is not a trove classifier"));
}

// METADATA is the uploader's text: 30 made-up classifiers give 25 findings and a count of the rest.
TEST(PypiMetadata, ManyFindingsAreListedThenCounted) {
  std::string many;
  for (int i = 0; i < 30; ++i) many += "Classifier: Made Up :: " + std::to_string(i) + "\n";
  auto fs = wc205(demo(many));
  ASSERT_EQ(fs.size(), 26u) << dump(fs);
  EXPECT_TRUE(says(fs, "classifier 'Made Up :: 24' is not a trove classifier")) << dump(fs);
  EXPECT_FALSE(says(fs, "classifier 'Made Up :: 25'")) << dump(fs);
  EXPECT_TRUE(says(fs, "5 more WC205 findings of this METADATA not listed")) << dump(fs);
  EXPECT_EQ(fs.back().severity, Severity::error);
}

// warehouse test_length_is_limited (Summary, 512): 511 and 512 pass, 513 fails; characters, not bytes.
TEST(PypiMetadata, SummaryLength) {
  auto with = [](const std::string& s) {
    WheelBuilder w("demo", "1.0");
    return w.metadata("Metadata-Version: 2.4\nName: demo\nVersion: 1.0\nSummary: " + s + "\n")
        .add("demo/__init__.py", "");
  };
  EXPECT_TRUE(wc205(with(std::string(512, 'a'))).empty());
  std::string accented;
  for (int i = 0; i < 512; ++i) accented += "\xc3\xa9";  // 512 characters, 1024 bytes
  EXPECT_TRUE(wc205(with(accented)).empty());
  EXPECT_TRUE(says(wc205(with(std::string(513, 'a'))), "Summary has 513 characters; PyPI takes 512 at most"));
}

// warehouse test_valid_emails, test_invalid_emails ("Foo <test>"), test_valid_emails_no_address
// ("Foo <>" names no address, so nothing to reject).
TEST(PypiMetadata, EmailFields) {
  for (const char* f : {"Author-email", "Maintainer-email"}) {
    std::string field = f;
    EXPECT_TRUE(wc205(demo(field + ": test@pypi.org\n")).empty());
    EXPECT_TRUE(wc205(demo(field + ": Foo <>\n")).empty());
    EXPECT_TRUE(wc205(demo(field + ": \"Doe, Jane\" <jane@example.org>, Bob <bob@b.example.com>\n")).empty());
    EXPECT_TRUE(
        says(wc205(demo(field + ": Foo <test>\n")), field + ": 'test' is not an e-mail address: it has no '@'"));
    EXPECT_TRUE(says(wc205(demo(field + ": a@b.org, me@example.test\n")), "is at the special-use domain '.test'"));
    EXPECT_TRUE(says(wc205(demo(field + ": me@localhost\n")), "has a domain without a '.'"));
    EXPECT_TRUE(says(wc205(demo(field + ": x..y@pypi.org\n")), "misplaced '.'"));
  }
}

// warehouse test_valid_urls, test_invalid_urls, test_valid_project_url, test_invalid_project_urls
// (",", "", a 100-character label, "IRC,", "IRC, irc://example.com/") and
// TestFromFormData.test_duplicate_labels_for_project_urls.
TEST(PypiMetadata, UrlFieldsAndProjectUrls) {
  EXPECT_TRUE(wc205(demo("Home-page: https://example.com/\nDownload-URL: http://example.com:8080/x\n")).empty());
  EXPECT_TRUE(says(wc205(demo("Home-page: irc://example.com/\n")), "Home-page 'irc://example.com/' is not an http"));
  EXPECT_TRUE(says(wc205(demo("Home-page: UNKNOWN\n")), "Home-page 'UNKNOWN'"));
  EXPECT_TRUE(says(wc205(demo("Download-URL: https:///path\n")), "has no host"));
  EXPECT_TRUE(wc205(demo("Project-URL: Foo, https://example.com/\n")).empty());
  EXPECT_TRUE(says(wc205(demo("Project-URL: ,\n")), "has no label"));
  EXPECT_TRUE(says(wc205(demo("Project-URL: \n")), "has no label"));
  EXPECT_TRUE(says(wc205(demo("Project-URL: " + std::string(100, 'a') + ", https://example.com/\n")),
                   "has a label of 100 characters; PyPI takes 32 at most"));
  EXPECT_TRUE(wc205(demo("Project-URL: " + std::string(32, 'a') + ", https://example.com/\n")).empty());
  EXPECT_TRUE(says(wc205(demo("Project-URL: IRC,\n")), "has no URL"));
  EXPECT_TRUE(says(wc205(demo("Project-URL: IRC, irc://example.com/\n")), "is not an http or https URL"));
  EXPECT_TRUE(says(wc205(demo("Project-URL: one, https://example.com/1/\nProject-URL: one, https://example.com/2/\n")),
                   "repeats the label 'one'"));
}

// warehouse test_valid_dists, test_invalid_dists (the direct-dependency half; the invalid-version
// half is WC202's).
TEST(PypiMetadata, DirectUrlRequirements) {
  for (const char* f : {"Requires-Dist", "Provides-Dist", "Obsoletes-Dist"}) {
    std::string field = f;
    EXPECT_TRUE(wc205(demo(field + ": foo>=1.0\n")).empty());
    EXPECT_TRUE(says(wc205(demo(field + ": foo @ https://example.com/foo-1.0.tar.gz\n")),
                     field + " 'foo @ https://example.com/foo-1.0.tar.gz' is a direct URL reference"));
  }
}

// warehouse test_valid_dynamic, test_invalid_dynamic; packaging _process_dynamic.
TEST(PypiMetadata, Dynamic) {
  EXPECT_TRUE(wc205(demo("Dynamic: keywords\nDynamic: author\nDynamic: License-File\n", "2.4")).empty());
  EXPECT_TRUE(says(wc205(demo("Dynamic: Invalid\n")), "Dynamic names 'Invalid', which is not a core metadata field"));
  auto name = pypi(demo("Dynamic: Name\n"));  // the specification's own rule stays WC202
  EXPECT_TRUE(has_rule(name, "WC202")) << dump(name);
  EXPECT_FALSE(has_rule(name, "WC205")) << dump(name);
}

// warehouse TestParse.test_valid_from_file_2_5 (Import-Name: widget, Import-Namespace: gadget) and
// packaging's _process_import_names: dotted identifiers, no keywords, only "; private".
TEST(PypiMetadata, ImportNameSyntaxAndImportability) {
  auto ok = demo("Import-Name: widget\nImport-Name: widget.sub ; private\nImport-Namespace: gadget\n", "2.5");
  ok.add("widget/__init__.py", "").add("widget/sub.py", "").add("gadget/part/__init__.py", "");
  EXPECT_TRUE(wc205(ok).empty()) << dump(wc205(ok));
  EXPECT_TRUE(wc205(demo("Import-Name:\n", "2.5")).empty());  // declares nothing: allowed
  EXPECT_TRUE(wc205(demo("Import-Name: demo\n", "2.5")).empty());
  for (const auto& [value, why] :
       std::vector<std::pair<std::string, std::string>>{{"1abc", "'1abc' is not a valid identifier"},
                                                        {"demo.class", "'class' is a keyword"},
                                                        {"demo..x", "'' is not a valid identifier"},
                                                        {"demo; public", "the only option after ';' is 'private'"}}) {
    auto fs = wc205(demo("Import-Name: " + value + "\n", "2.5"));
    EXPECT_TRUE(says(fs, why)) << value << "\n" << dump(fs);
  }
  EXPECT_TRUE(says(wc205(demo("Import-Name: demo\nImport-Namespace: demo\n", "2.5")),
                   "'demo' is both an Import-Name and an Import-Namespace"));
  EXPECT_TRUE(
      says(wc205(demo("Import-Name: elsewhere\n", "2.5")), "Import-Name 'elsewhere' is not importable from the wheel"));
  // Modules, extension modules and .data/platlib count as the installed tree.
  auto tree = demo("Import-Name: one\nImport-Name: two\nImport-Name: three\nImport-Name: demo\n", "2.5");
  tree.add("one.py", "")
      .add("two.cpython-312-x86_64-linux-gnu.so",
           "\x7f"
           "ELF")
      .add("demo-1.0.data/platlib/three/__init__.py", "");
  auto fs = wc205(tree);
  EXPECT_FALSE(says(fs, "not importable")) << dump(fs);
}

// Two projects of one install set (demo requires other) claiming one Import-Name: WC205 on the
// wheel whose install set takes the other in (demo), naming the other; not on `other`, whose own
// install set is itself.
TEST(PypiMetadata, ImportNameClaimedTwiceInOneInstallSet) {
  TempDir dir;
  WheelBuilder a("demo", "1.0");
  a.metadata(meta("Import-Name: shared\nRequires-Dist: other\n", "2.5")).add("shared/__init__.py", "");
  WheelBuilder b("other", "1.0");
  b.metadata("Metadata-Version: 2.5\nName: other\nVersion: 1.0\nImport-Name: shared\n").add("shared/__init__.py", "");
  a.write(dir.path());
  b.write(dir.path());
  auto r = run_wheelcheck({"check", "--policy", "pypi", dir.path()});
  EXPECT_NE(r.out.find("Import-Name 'shared' is also claimed by other in the same install set"), std::string::npos)
      << r.out << r.err;
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAIL  " + dir.file(a.filename())), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PASS  " + dir.file(b.filename())), std::string::npos) << r.out;
  WheelBuilder c("other", "1.0");
  c.metadata("Metadata-Version: 2.5\nName: other\nVersion: 1.0\nImport-Name: elsewhere\n").add("elsewhere.py", "");
  c.write(dir.path());  // replaces b
  auto fine = run_wheelcheck({"check", "--policy", "pypi", dir.path()});
  EXPECT_EQ(fine.out.find("also claimed"), std::string::npos) << fine.out;
}

// WC705: the Import-Name set must be one across a release's wheels.
TEST(PypiMetadata, ImportNamesAgreeAcrossTheRelease) {
  Policy p = load_policy("default");
  auto member = [&](const std::string& tag, const std::string& names) {
    WheelBuilder w("demo", "1.0", tag);
    w.metadata(meta(names, "2.5")).add("demo/__init__.py", "");
    return summarize(facts_of(w.build(), w.filename()), p);
  };
  auto a = member("cp312-cp312-manylinux_2_28_x86_64", "Import-Name: demo\n");
  auto b = member("cp312-cp312-manylinux_2_28_aarch64", "Import-Name: demo\n");
  auto c = member("cp312-cp312-macosx_11_0_arm64", "Import-Name: demo\nImport-Name: demo._native\n");
  auto same = check_release_set({a, b}, p, nullptr);
  EXPECT_FALSE(testing::has_rule(same.findings, "WC705")) << testing::dump(same.findings);
  auto v = check_release_set({a, b, c}, p, nullptr);
  EXPECT_TRUE(testing::says(v.findings, "the Import-Name/Import-Namespace set (PEP 794) is [demo, demo._native] here"))
      << testing::dump(v.findings);
}

// The shipped SPDX and classifier tables are what tools/gen_pypi_metadata_data.py makes of its
// pinned sources (packaging and trove-classifiers wheels from PyPI, by version and sha256; skipped
// when PyPI cannot be reached), byte for byte; and a drifted table is noticed.
TEST(PypiMetadataTables, MatchTheirGenerator) {
  std::string src = WC_SOURCE_DIR;
  TempDir dir;
  std::string gen = "python3 " + shell_quote(src + "/tools/gen_pypi_metadata_data.py");
  auto out = run_command(gen + " --out-dir " + shell_quote(dir.path()));
  if (out.exit_code == 3) GTEST_SKIP() << "PyPI not reachable: " << out.err;
  ASSERT_EQ(out.exit_code, 0) << out.err;
  for (const char* name : {"spdx_licenses.json", "trove_classifiers.json"}) {
    auto made = read_file(dir.file(name)), shipped = read_file(src + "/policies/" + name);
    EXPECT_TRUE(made == shipped) << name << " differs from what the generator writes: run " << gen
                                 << " --out-dir policies";
  }
  auto ok = run_command(gen + " --check-dir " + shell_quote(src + "/policies"));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  auto text = read_file(dir.file("trove_classifiers.json"));
  std::string t(text.begin(), text.end());
  auto at = t.find("\"Topic :: Utilities\"");
  ASSERT_NE(at, std::string::npos);
  t.replace(at, 20, "\"Topic :: Utilitie\"");
  write_file(dir.file("trove_classifiers.json"), std::vector<uint8_t>(t.begin(), t.end()));
  auto drift = run_command(gen + " --check-dir " + shell_quote(dir.path()));
  EXPECT_EQ(drift.exit_code, 1);
  EXPECT_NE(drift.err.find("Topic :: Utilities"), std::string::npos) << drift.err;
}

// The oracle: packaging's canonicalize_license_expression (the pinned wheel the tables come from,
// imported from the zip) and wheelcheck's agree on validity and on the canonical form.
TEST(LicenseExpression, AgreesWithPackaging) {
  const char* home = std::getenv("HOME");
  std::string cache = std::string(home ? home : "/tmp") + "/.cache/wheelcheck-tests/real";
  std::string src = WC_SOURCE_DIR;
  auto fetch = run_command("python3 " + shell_quote(src + "/tools/fetch_wheels.py") + " " + shell_quote(cache) +
                           " packaging packaging-26.4-py3-none-any.whl "
                           "81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2");
  if (fetch.exit_code == 3) GTEST_SKIP() << "PyPI not reachable: " << fetch.err;
  ASSERT_EQ(fetch.exit_code, 0) << fetch.err;
  const std::vector<std::string> cases = {"MIT",
                                          "mit",
                                          "Apache-2.0",
                                          "apache-2.0 OR mit",
                                          "MIT AND (Apache-2.0 OR BSD-2-Clause)",
                                          "mit and (apache-2.0 or bsd-2-clause)",
                                          "MIT OR GPL-2.0-or-later OR (FSFUL AND BSD-2-Clause)",
                                          "GPL-3.0-only WITH Classpath-exception-2.0 OR BSD-3-Clause",
                                          "gpl-3.0-only with classpath-exception-2.0",
                                          "LicenseRef-Special-License OR CC0-1.0 OR Unlicense",
                                          "LicenseRef-Public-Domain",
                                          "licenseref-proprietary",
                                          "LicenseRef-A AND licenseref-a",
                                          "LicenseRef-a.b-c",
                                          "((MIT))",
                                          "( MIT )",
                                          "(MIT)AND(BSD-3-Clause)",
                                          "MIT\tAND\nBSD-3-Clause",
                                          "GPL-2.0+",
                                          "gpl-2.0-or-later+",
                                          "MIT+",
                                          "AGPL-1.0",
                                          "eCos-2.0",
                                          "MIT WITH Classpath-exception-2.0 WITH GCC-exception-3.1",
                                          "(MIT) WITH Classpath-exception-2.0",
                                          "(MIT OR Apache-2.0) WITH Classpath-exception-2.0",
                                          "LicenseRef-",
                                          "LicenseRef-Foo+",
                                          "LicenseRef-a_b",
                                          "LicenseRef-License with spaces",
                                          "DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2",
                                          "AdditionRef-x",
                                          "",
                                          " ",
                                          "Use-it-after-midnight",
                                          "or",
                                          "and",
                                          "with",
                                          "mit or",
                                          "mit and",
                                          "mit with",
                                          "or mit",
                                          "and mit",
                                          "with mit",
                                          "(mit",
                                          "mit)",
                                          ") mit",
                                          "mit (",
                                          "mit or or apache-2.0",
                                          "mit (apache-2.0)",
                                          "mit with mit",
                                          "mit with (Classpath-exception-2.0)",
                                          "MIT WITH Classpath-exception-2.0+",
                                          "MIT WITH LicenseRef-x",
                                          "Classpath-exception-2.0",
                                          "MIT OR Apache",
                                          "+",
                                          "MIT++",
                                          "M+IT",
                                          "(",
                                          ")",
                                          "()",
                                          "MIT AND ()",
                                          std::string(200, '(') + "MIT" + std::string(200, ')'),
                                          std::string(201, '(') + "MIT" + std::string(201, ')'),
                                          "MIT\xc2\xa0OR Apache-2.0",
                                          "LicenseRef-caf\xc3\xa9",
                                          "caf\xc3\xa9"};
  TempDir dir;
  {
    std::ofstream f(dir.file("cases.json"));
    nlohmann::json j = cases;
    f << j.dump();
  }
  std::ofstream(dir.file("oracle.py")) << "import json, sys\nsys.path.insert(0, sys.argv[1])\n"
                                          "from packaging.licenses import canonicalize_license_expression as c\n"
                                          "out = []\n"
                                          "for e in json.load(open(sys.argv[2], encoding='utf-8')):\n"
                                          "    try:\n        out.append(c(e))\n"
                                          "    except ValueError:\n        out.append(None)\n"
                                          "print(json.dumps(out))\n";
  auto py =
      run_command("python3 " + shell_quote(dir.file("oracle.py")) + " " +
                  shell_quote(cache + "/packaging-26.4-py3-none-any.whl") + " " + shell_quote(dir.file("cases.json")));
  ASSERT_EQ(py.exit_code, 0) << py.err;
  auto verdicts = nlohmann::json::parse(py.out);
  ASSERT_EQ(verdicts.size(), cases.size());
  Policy p = load_policy("default");
  size_t valid = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    auto ours = canonicalize_license_expression(cases[i], p.metadata.spdx_licenses, p.metadata.spdx_exceptions);
    if (verdicts[i].is_null()) {
      EXPECT_FALSE(ours.canonical) << "packaging rejects '" << cases[i] << "', wheelcheck says " << *ours.canonical;
    } else {
      ++valid;
      EXPECT_EQ(ours.canonical.value_or("(invalid: " + ours.error + ")"), verdicts[i].get<std::string>())
          << "for '" << cases[i] << "'";
    }
  }
  EXPECT_GT(valid, 15u);  // both kinds are exercised
  EXPECT_GT(cases.size() - valid, 30u);
}

}  // namespace
}  // namespace wc
