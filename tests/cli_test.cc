// End to end: the wheelcheck binary on wheels written at test time; exit codes, formats, files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "catalog/catalog.h"
#include "report/report.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::run_wheelcheck;
using testing::WheelBuilder;

struct Wheelhouse {
  testing::TempDir dir;
  std::string good, bad;
  Wheelhouse() {
    good = WheelBuilder("good", "1.0").add("good/__init__.py", "").write(dir.path());
    bad = WheelBuilder("bad", "1.0")
              .add("bad/__init__.py", "")
              .edit_record([](auto& r) { r[0][2] = "7"; })
              .write(dir.path());
  }
};

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Cli, ExitCodes) {
  Wheelhouse w;
  EXPECT_EQ(run_wheelcheck({"check", w.good}).exit_code, 0);
  auto bad = run_wheelcheck({"check", w.bad});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("WC303"), std::string::npos) << bad.out;
  EXPECT_EQ(run_wheelcheck({"check", w.dir.path()}).exit_code, 1);
  auto missing = run_wheelcheck({"check", w.dir.file("nope.whl")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.whl: no such file"), std::string::npos) << missing.err;
  EXPECT_EQ(run_wheelcheck({"check", w.good, "--bogus-flag"}).exit_code, 2);
  EXPECT_EQ(run_wheelcheck({"check", w.good, "--format", "yaml"}).exit_code, 2);
  EXPECT_EQ(run_wheelcheck({"check", w.good, "--policy", "no-such-policy"}).exit_code, 2);
  EXPECT_EQ(run_wheelcheck({"check", w.good, "-j", "0"}).exit_code, 2);
  EXPECT_EQ(run_wheelcheck({}).exit_code, 2);
  testing::TempDir empty;
  auto none = run_wheelcheck({"check", empty.path()});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no *.whl files"), std::string::npos);
}

TEST(Cli, UnreadableWheelIsAFindingNotAUsageError) {
  testing::TempDir d;
  testing::write_file(d.file("junk-1.0-py3-none-any.whl"), std::vector<uint8_t>(100, 'j'));
  WheelBuilder("good", "1.0").add("good/__init__.py", "").write(d.path());
  auto r = run_wheelcheck({"check", d.path()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("WC404"), std::string::npos);
  EXPECT_NE(r.out.find("PASS  " + d.file("good-1.0-py3-none-any.whl")), std::string::npos) << r.out;
}

TEST(Cli, JsonReportSchema) {
  Wheelhouse w;
  auto r = run_wheelcheck({"check", w.good, w.bad, "--format", "json", "--facts"});
  ASSERT_EQ(r.exit_code, 1);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "wheelcheck-report/1");
  EXPECT_EQ(j["tool"], "wheelcheck");
  EXPECT_EQ(j["policy"], "default");
  ASSERT_EQ(j["wheels"].size(), 2u);
  EXPECT_EQ(j["wheels"][0]["verdict"], "pass");
  EXPECT_EQ(j["wheels"][1]["verdict"], "fail");
  auto f = j["wheels"][1]["findings"][0];
  EXPECT_EQ(f["rule"], "WC303");
  EXPECT_EQ(f["severity"], "error");
  EXPECT_EQ(f["entry"], "bad/__init__.py");
  EXPECT_TRUE(j["wheels"][0]["facts"].contains("entries"));
  EXPECT_EQ(j["summary"]["failed"], 1);
}

TEST(Cli, SeveralReportsInOneRun) {
  Wheelhouse w;
  testing::TempDir out;
  auto r = run_wheelcheck({"check", w.dir.path(), "--report", "json:" + out.file("r.json"), "--report",
                           "junit:" + out.file("r.xml"), "--format", "github", "-o", out.file("gh.txt")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(slurp(out.file("r.json")))["summary"]["total"], 2);
  std::string gh = slurp(out.file("gh.txt"));
  EXPECT_NE(gh.find("::error file=" + w.bad + ",title=WC303 bad/__init__.py::size is"), std::string::npos) << gh;
  // The JUnit file must be well-formed XML with one failing test case.
  auto py = testing::run_command(
      "python3 -c \"import sys,xml.etree.ElementTree as E; t=E.parse(sys.argv[1]); "
      "print(len(t.findall('.//testcase')), len(t.findall('.//failure')))\" " +
      testing::shell_quote(out.file("r.xml")));
  ASSERT_EQ(py.exit_code, 0) << py.err;
  EXPECT_EQ(py.out, "2 1\n");
  // Findings on lines of their own (not the literal text \x0a), and the attributes Jenkins'
  // junit-10.xsd wants: no `skipped` on <testsuites>, `errors` on <testsuite>.
  std::string xml = slurp(out.file("r.xml"));
  EXPECT_EQ(xml.find("\\x0a"), std::string::npos) << xml;
  auto attrs = testing::run_command(
      "python3 -c \"import sys,xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); s=r.find('testsuite'); "
      "f=r.find('.//failure'); print('skipped' in r.attrib, 'errors' in s.attrib, f.text.count(chr(10)) >= 1)\" " +
      testing::shell_quote(out.file("r.xml")));
  EXPECT_EQ(attrs.out, "False True True\n") << attrs.err << xml;
  EXPECT_EQ(run_wheelcheck({"check", w.good, "--report", "yaml:x"}).exit_code, 2);
  // A wheel after --report FORMAT:FILE is a target, not another report.
  auto after = run_wheelcheck({"check", "--report", "json:" + out.file("after.json"), w.good, w.bad});
  EXPECT_EQ(after.exit_code, 1) << after.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(out.file("after.json")))["summary"]["total"], 2);
  auto sarif = run_wheelcheck({"check", w.bad, "--format", "sarif"});
  EXPECT_EQ(sarif.exit_code, 1);
  auto s = nlohmann::json::parse(sarif.out);
  EXPECT_EQ(s["version"], "2.1.0");
  auto res = s["runs"][0]["results"][0];
  EXPECT_EQ(res["ruleId"], "WC303");
  EXPECT_EQ(res["level"], "error");
  EXPECT_EQ(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], w.bad);
  // A path with a space is a percent-encoded URI reference.
  testing::TempDir spaced;
  std::filesystem::create_directories(spaced.file("my dist"));
  std::string moved = spaced.file("my dist/bad-1.0-py3-none-any.whl");
  std::filesystem::copy_file(w.bad, moved);
  auto enc = nlohmann::json::parse(run_wheelcheck({"check", moved, "--format", "sarif"}).out);
  std::string uri = enc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
  EXPECT_NE(uri.find("my%20dist/bad-1.0-py3-none-any.whl"), std::string::npos) << uri;
  EXPECT_EQ(s["runs"][0]["tool"]["driver"]["rules"][res["ruleIndex"].get<size_t>()]["id"], "WC303");
  // What Jenkins and GitHub would be handed, against their schemas: the JUnit file, the SARIF of
  // the failing wheel, and the SARIF of the path with a space.
  testing::write_file(out.file("bad.sarif"), std::vector<uint8_t>(sarif.out.begin(), sarif.out.end()));
  std::string spaced_sarif = run_wheelcheck({"check", moved, w.good, "--format", "sarif"}).out;
  testing::write_file(out.file("spaced.sarif"), std::vector<uint8_t>(spaced_sarif.begin(), spaced_sarif.end()));
  bool unavailable = false;
  std::string complaints =
      testing::schema_complaints({out.file("r.xml"), out.file("bad.sarif"), out.file("spaced.sarif")}, &unavailable);
  if (unavailable) GTEST_SKIP() << "the schemas could not be fetched from PyPI: " << complaints;
  EXPECT_EQ(complaints, "");
}

// The schema check itself fails on what the consumers reject: `skipped` on <testsuites> and a
// <testsuite> without `errors` (junit-10.xsd), a URI with a bare space and a result without a
// message (SARIF 2.1.0).
TEST(Cli, SchemaCheckRejectsWhatConsumersReject) {
  testing::TempDir out;
  std::string xml =
      R"(<?xml version="1.0" encoding="UTF-8"?><testsuites tests="1" skipped="0"><testsuite name="x" tests="1" )"
      R"(failures="0"><testcase name="a" classname="b"/></testsuite></testsuites>)";
  testing::write_file(out.file("bad.xml"), std::vector<uint8_t>(xml.begin(), xml.end()));
  std::string sarif = R"({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [
      {"ruleId": "WC303", "locations": [{"physicalLocation": {"artifactLocation": {"uri": "my dist/x.whl"}}}]}]}]})";
  testing::write_file(out.file("bad.sarif"), std::vector<uint8_t>(sarif.begin(), sarif.end()));
  bool unavailable = false;
  std::string complaints = testing::schema_complaints({out.file("bad.xml"), out.file("bad.sarif")}, &unavailable);
  if (unavailable) GTEST_SKIP() << "the schemas could not be fetched from PyPI: " << complaints;
  EXPECT_NE(complaints.find("bad.xml: not valid against junit-10.xsd"), std::string::npos) << complaints;
  EXPECT_NE(complaints.find("skipped"), std::string::npos) << complaints;
  EXPECT_NE(complaints.find("bad.sarif: not valid against sarif-schema-2.1.0.json"), std::string::npos) << complaints;
  EXPECT_NE(complaints.find("'message' is a required property"), std::string::npos) << complaints;
  EXPECT_NE(complaints.find("is not a 'uri-reference'"), std::string::npos) << complaints;
}

// `rules ID` explains a rule; every rule of the catalogue has an explanation and nothing else does.
TEST(Cli, RulesExplainEveryRule) {
  std::set<std::string> catalogue, helped;
  for (const auto& r : wheelcheck_rules()) catalogue.insert(r.id);
  for (const auto& h : wheelcheck_rule_help()) {
    EXPECT_TRUE(helped.insert(h.id).second) << h.id << " explained twice";
    for (const char* field : {h.checks, h.why, h.fix, h.example}) EXPECT_GT(std::string(field).size(), 10u) << h.id;
    const RuleInfo* r = find_rule(h.id);
    ASSERT_NE(r, nullptr) << h.id << " is explained but not in the catalogue";
    // The example reads like the finding it illustrates: the rule's default severity (error or
    // warning for the rules off by default, as a policy turns them on) and its ID.
    std::string ex = h.example;
    if (r->default_severity == Severity::off)
      EXPECT_TRUE(ex.rfind("error", 0) == 0 || ex.rfind("warning", 0) == 0) << h.id << ": " << ex;
    else
      EXPECT_EQ(ex.rfind(severity_name(r->default_severity), 0), 0u) << h.id << ": " << ex;
    EXPECT_NE(ex.find(h.id), std::string::npos) << h.id << ": " << ex;
  }
  EXPECT_EQ(helped, catalogue);
  auto one = run_wheelcheck({"rules", "wc502"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  for (const char* part : {"WC502  error by default", "What it checks:", "Why it matters:", "How to fix it:",
                           "How to waive it:", "--ignore WC502", "\"rule\": \"WC502\"", "Example finding"})
    EXPECT_NE(one.out.find(part), std::string::npos) << part << "\n" << one.out;
  auto j = nlohmann::json::parse(run_wheelcheck({"rules", "WC502", "WC706", "--format", "json"}).out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[1]["id"], "WC706");
  EXPECT_NE(j[0]["why"].get<std::string>().find("GLIBC"), std::string::npos);
  auto typo = run_wheelcheck({"rules", "WC52"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("wheelcheck: unknown rule 'WC52' (did you mean 'WC502'?"), std::string::npos) << typo.err;
}

// [tool.wheelcheck] in pyproject.toml: found from the current directory upward, its waivers,
// rules and filters applied, every flag overriding it; malformed files are exit 2 naming the line.
TEST(Cli, ProjectConfigFromPyproject) {
  Wheelhouse w;
  testing::TempDir proj;
  std::filesystem::create_directories(proj.file("a/b"));
  auto write = [&](const std::string& path, const std::string& text) {
    testing::write_file(path, std::vector<uint8_t>(text.begin(), text.end()));
  };
  auto in_sub = [&](const std::string& args) {
    return testing::run_command("cd " + testing::shell_quote(proj.file("a/b")) + " && NO_COLOR=1 " +
                                testing::shell_quote(WC_BINARY) + " " + args);
  };
  const std::string bad = testing::shell_quote(w.bad), good = testing::shell_quote(w.good);
  ASSERT_EQ(in_sub("check -q " + bad).exit_code, 1) << "no pyproject.toml yet: WC303 fails the wheel";
  write(proj.file("pyproject.toml"),
        "[project]\nname = \"bad\"\n\n[tool.wheelcheck]\npolicy = \"default\"\n"
        "[[tool.wheelcheck.waive]]\nrule = \"WC303\"\npath = \"bad/*\"\n"
        "reason = \"a test of waivers\"\n");
  auto waived = in_sub("check --format json " + bad);
  EXPECT_EQ(waived.exit_code, 0) << waived.out << waived.err;
  auto j = nlohmann::json::parse(waived.out);
  EXPECT_EQ(j["wheels"][0]["waived"][0]["rule"], "WC303") << j.dump(1);
  EXPECT_NE(j["policy_source"].get<std::string>().find("pyproject.toml [tool.wheelcheck]"), std::string::npos);
  EXPECT_EQ(in_sub("check -q --no-config " + bad).exit_code, 1) << "--no-config leaves it out";
  // Filters: the table's ignore, and a flag that replaces it.
  write(proj.file("pyproject.toml"), "[tool.wheelcheck]\nignore = [\"WC3*\"]\n");
  EXPECT_EQ(in_sub("check -q " + bad).exit_code, 0);
  EXPECT_EQ(in_sub("check -q --ignore WC999 " + bad).exit_code, 1) << "--ignore replaces the table's list";
  // strict: a warning fails; --policy on the command line replaces the table's policy.
  write(proj.file("pyproject.toml"), "[tool.wheelcheck]\nstrict = true\npolicy = \"no-such-policy\"\n");
  auto typo = in_sub("check -q " + good);
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("no-such-policy"), std::string::npos) << typo.err;
  EXPECT_EQ(in_sub("check -q --policy default " + good).exit_code, 0) << "--policy overrides the table";
  // A policy file named in pyproject.toml is relative to it, from any subdirectory.
  write(proj.file("ours.json"), R"({"extends": "default", "rules": {"WC303": "warning"}})");
  write(proj.file("pyproject.toml"), "[tool.wheelcheck]\npolicy = \"ours.json\"\n");
  auto lenient = in_sub("check " + bad);
  EXPECT_EQ(lenient.exit_code, 0) << "WC303 is a warning in ours.json: " << lenient.out << lenient.err;
  EXPECT_NE(lenient.out.find("warning WC303"), std::string::npos) << lenient.out;
  write(proj.file("pyproject.toml"), "[tool.wheelcheck]\npolicy = \"ours.json\"\nstrict = true\n");
  EXPECT_EQ(in_sub("check -q " + bad).exit_code, 1) << "strict = true: the warning fails";
  // Mistakes, each naming the file and line (or the policy key).
  write(proj.file("pyproject.toml"), "[tool.wheelcheck]\nignore = 3\n");
  auto wrong = in_sub("check " + good);
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("pyproject.toml:2: [tool.wheelcheck] ignore must be a list of strings"), std::string::npos)
      << wrong.err;
  write(proj.file("pyproject.toml"), "[tool.wheelcheck\n");
  auto broken = in_sub("check " + good);
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("pyproject.toml:1: not valid TOML"), std::string::npos) << broken.err;
  write(proj.file("pyproject.toml"), "[tool.wheelcheck]\nlimitz = 3\n");
  auto unknown = in_sub("check " + good);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("limitz"), std::string::npos) << unknown.err;
  // A pyproject.toml without the table is passed over for one further up.
  write(proj.file("a/pyproject.toml"), "[project]\nname = \"inner\"\n");
  write(proj.file("pyproject.toml"), "[tool.wheelcheck]\nignore = [\"WC303\"]\n");
  EXPECT_EQ(in_sub("check -q " + bad).exit_code, 0);
}

TEST(Cli, MergeShards) {
  Wheelhouse w;
  testing::TempDir out;
  EXPECT_EQ(run_wheelcheck({"check", w.good, "--report", "json:" + out.file("a.json"), "-q"}).exit_code, 0);
  EXPECT_EQ(run_wheelcheck({"check", w.bad, "--report", "json:" + out.file("b.json"), "-q"}).exit_code, 1);
  auto m = run_wheelcheck({"merge", out.file("a.json"), out.file("b.json"), "--format", "json"});
  EXPECT_EQ(m.exit_code, 1);
  auto j = nlohmann::json::parse(m.out);
  EXPECT_EQ(j["summary"]["total"], 2);
  EXPECT_EQ(j["summary"]["failed"], 1);
  EXPECT_EQ(j["wheels"][1]["findings"][0]["rule"], "WC303");
  EXPECT_EQ(run_wheelcheck({"merge", out.file("a.json")}).exit_code, 0);
  EXPECT_EQ(run_wheelcheck({"merge", out.file("a.json"), out.file("b.json"), "--report", "junit:" + out.file("m.xml"),
                            "--report", "sarif:" + out.file("m.sarif")})
                .exit_code,
            1);
  bool unavailable = false;
  std::string complaints = testing::schema_complaints({out.file("m.xml"), out.file("m.sarif")}, &unavailable);
  if (!unavailable) {
    EXPECT_EQ(complaints, "") << "merge's reports against junit-10.xsd and SARIF 2.1.0";
  }
  testing::write_file(out.file("junk.json"), std::vector<uint8_t>{'{', '}'});
  auto bad = run_wheelcheck({"merge", out.file("junk.json")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("junk.json: not a wheelcheck JSON report"), std::string::npos) << bad.err;
  // A shard count of 2^64-1 (or 2^32-1, which an unchecked read truncates it to) is refused before
  // anything is sized by it.
  for (const char* count : {"18446744073709551615", "4294967295", "0"}) {
    std::string text = R"({"schema": "wheelcheck-report/1", "shard": {"index": 1, "count": )" + std::string(count) +
                       R"(, "targets": 1, "digest": "x"}, "wheels": []})";
    testing::write_file(out.file("huge.json"), std::vector<uint8_t>(text.begin(), text.end()));
    auto huge = run_wheelcheck({"merge", out.file("huge.json")});
    EXPECT_EQ(huge.exit_code, 2) << count;
    EXPECT_NE(huge.err.find("huge.json: shard"), std::string::npos) << huge.err;
  }
}

// One fault repeated over files reads as one finding: text names the first three and a count,
// JSON keeps every location, SARIF one result per location, merge reads the locations back.
TEST(Cli, RepeatsFoldIntoOneFinding) {
  testing::TempDir out;
  WheelBuilder b("rep", "1.0");
  b.add("rep/__init__.py", "");
  for (int k = 0; k < 5; ++k) b.add_unrecorded("rep/m" + std::to_string(k) + ".py", "x = 1\n");
  std::string w = b.write(out.path());
  auto text = run_wheelcheck({"check", w});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("rep/m0.py, rep/m1.py, rep/m2.py and 2 more: "), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("rep/m3.py"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("1 error"), std::string::npos) << text.out;
  auto j = nlohmann::json::parse(run_wheelcheck({"check", w, "--format", "json"}).out);
  nlohmann::json folded;
  for (const auto& f : j["wheels"][0]["findings"])
    if (f["rule"] == "WC304") folded = f;
  ASSERT_EQ(folded["locations"].size(), 5u) << j.dump(1);
  EXPECT_EQ(folded["entry"], "rep/m0.py");
  EXPECT_EQ(folded["locations"][4]["entry"], "rep/m4.py");
  auto sarif = nlohmann::json::parse(run_wheelcheck({"check", w, "--format", "sarif"}).out);
  size_t results = 0;
  for (const auto& r : sarif["runs"][0]["results"]) results += r["ruleId"] == "WC304";
  EXPECT_EQ(results, 5u);
  // What the JSON says, merge says again.
  EXPECT_EQ(run_wheelcheck({"check", w, "--report", "json:" + out.file("r.json"), "-q"}).exit_code, 1);
  auto merged = nlohmann::json::parse(run_wheelcheck({"merge", out.file("r.json"), "--format", "json"}).out);
  size_t merged_wc304 = 0;
  for (const auto& f : merged["wheels"][0]["findings"])
    if (f["rule"] == "WC304") {
      ++merged_wc304;
      EXPECT_EQ(f["locations"], folded["locations"]);
    }
  EXPECT_EQ(merged_wc304, 1u) << merged.dump(1);
  // Different messages stay apart: a RECORD size for each file (WC303 names the sizes).
  WheelBuilder sizes("sizes", "1.0");
  sizes.add("sizes/__init__.py", "").add("sizes/a.py", "a = 1\n").add("sizes/b.py", "bb = 22\n");
  std::string s2 = sizes.edit_record([](auto& r) { r[1][2] = "1", r[2][2] = "2"; }).write(out.path());
  auto j2 = nlohmann::json::parse(run_wheelcheck({"check", s2, "--format", "json"}).out);
  size_t wc303 = 0;
  for (const auto& f : j2["wheels"][0]["findings"]) wc303 += f["rule"] == "WC303" && !f.contains("locations");
  EXPECT_EQ(wc303, 2u) << j2.dump(1);
}

// Folding takes the entry out only where it stands as a name of its own: x.so needing libx.so and
// y.so needing liby.so are two findings, not one.
TEST(Report, FoldsOnlyWhatDiffersByTheEntry) {
  std::vector<Finding> fs = {
      {"WC503", Severity::error, "needs libx.so", "p/x.so", std::nullopt, {}},
      {"WC503", Severity::error, "needs liby.so", "p/y.so", std::nullopt, {}},
      {"WC504", Severity::warning, "p/a.so: RUNPATH /usr/local/cuda", "p/a.so", std::nullopt, {}},
      {"WC504", Severity::warning, "p/b.so: RUNPATH /usr/local/cuda", "p/b.so", std::nullopt, {}},
      {"WC504", Severity::error, "p/c.so: RUNPATH /usr/local/cuda", "p/c.so", std::nullopt, {}}};
  fold_repeats(fs);
  ASSERT_EQ(fs.size(), 4u);
  EXPECT_EQ(fs[0].message, "needs libx.so");
  EXPECT_TRUE(fs[0].repeats.empty());
  EXPECT_EQ(fs[2].repeats.size(), 1u);
  EXPECT_EQ(fs[2].repeats[0].entry, "p/b.so");
  EXPECT_TRUE(fs[3].repeats.empty()) << "another severity stays apart";
}

TEST(Cli, GithubStepSummary) {
  Wheelhouse w;
  testing::TempDir out;
  std::string summary = out.file("summary.md");
  auto r = testing::run_command("GITHUB_STEP_SUMMARY=" + testing::shell_quote(summary) + " " +
                                testing::shell_quote(WC_BINARY) + " check --format github " +
                                testing::shell_quote(w.dir.path()));
  EXPECT_EQ(r.exit_code, 1);
  std::string md = slurp(summary);
  EXPECT_NE(md.find("## wheelcheck: fail"), std::string::npos) << md;
  EXPECT_NE(md.find("| **fail** |"), std::string::npos) << md;
  EXPECT_NE(md.find("WC303"), std::string::npos);
}

TEST(Cli, NoColourWhenPiped) {
  Wheelhouse w;
  auto r = testing::run_command(testing::shell_quote(WC_BINARY) + " check " + testing::shell_quote(w.bad));
  EXPECT_EQ(r.out.find("\033["), std::string::npos);
}

TEST(Cli, ParallelKeepsOrder) {
  testing::TempDir d;
  for (int i = 0; i < 12; ++i) WheelBuilder("p" + std::to_string(i), "1.0").add("p/__init__.py", "").write(d.path());
  auto one = run_wheelcheck({"check", d.path(), "--format", "json"});
  auto four = run_wheelcheck({"check", d.path(), "--format", "json", "-j", "4"});
  EXPECT_EQ(one.exit_code, 0);
  EXPECT_EQ(one.out, four.out);
}

// Every rule ID the sources raise is in the catalogue `wheelcheck rules` prints (and SARIF lists).
TEST(Cli, EveryRaisedRuleIsCatalogued) {
  auto listed = nlohmann::json::parse(run_wheelcheck({"rules", "--format", "json"}).out);
  std::set<std::string> known;
  for (const auto& r : listed) known.insert(r["id"].get<std::string>());
  std::regex id("\"(WC[0-9]{3})\"");
  size_t raised = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(std::string(WC_SOURCE_DIR) + "/src/wheelcheck")) {
    if (f.path().extension() != ".cc" || f.path().string().find("/catalog/") != std::string::npos) continue;
    std::string text = slurp(f.path().string());
    for (std::sregex_iterator it(text.begin(), text.end(), id), end; it != end; ++it, ++raised)
      EXPECT_TRUE(known.count((*it)[1])) << (*it)[1] << " in " << f.path() << " is not in the catalogue";
  }
  EXPECT_GT(raised, 50u);
}

TEST(Cli, InspectRulesPolicy) {
  Wheelhouse w;
  auto ins = run_wheelcheck({"inspect", w.good, "--format", "json"});
  ASSERT_EQ(ins.exit_code, 0) << ins.err;
  auto all = nlohmann::json::parse(ins.out);
  EXPECT_EQ(all["schema"], "wheelcheck-inspect/1");
  ASSERT_EQ(all["wheels"].size(), 1u) << "one wheel: the same shape as many";
  auto j = all["wheels"][0];
  EXPECT_EQ(j["filename"]["canonical_name"], "good");
  EXPECT_EQ(nlohmann::json::parse(run_wheelcheck({"inspect", w.good, w.bad, "--format", "json"}).out)["wheels"].size(),
            2u);
  EXPECT_EQ(j["dist_info"], "good-1.0.dist-info");
  auto rules = run_wheelcheck({"rules"});
  EXPECT_EQ(rules.exit_code, 0);
  EXPECT_NE(rules.out.find("WC302  error"), std::string::npos) << rules.out;
  testing::TempDir d;
  std::string bad = "{\n  \"rules\": {\"WC302\": \"loud\"}\n}\n";
  testing::write_file(d.file("p.json"), std::vector<uint8_t>(bad.begin(), bad.end()));
  auto v = run_wheelcheck({"policy", "validate", d.file("p.json")});
  EXPECT_EQ(v.exit_code, 2);
  EXPECT_NE(v.out.find(d.file("p.json") + ":2: /rules/WC302:"), std::string::npos) << v.out;
  EXPECT_EQ(run_wheelcheck({"policy", "validate", std::string(WC_SOURCE_DIR) + "/policies/strict.json"}).exit_code, 0);
  auto show = run_wheelcheck({"policy", "show", "strict"});
  EXPECT_EQ(nlohmann::json::parse(show.out)["name"], "strict");
}

}  // namespace
// The conventions users of the peers expect (issue 21): --json, --ignore/--select with globs,
// --strict, --color and NO_COLOR only when set, a report file that cannot be written is exit 2
// before anything is read, the same wheel given twice is checked once, an unknown rules format is
// exit 2, and the text summary names the policy file actually used.
TEST(Cli, PeerConventions) {
  Wheelhouse w;
  auto json = run_wheelcheck({"check", "--json", w.bad});
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(json.out)["summary"]["failed"], 1);
  EXPECT_EQ(run_wheelcheck({"check", "--ignore", "WC3*", w.bad}).exit_code, 0);
  EXPECT_EQ(run_wheelcheck({"check", "--select", "WC1*,WC2*", w.bad}).exit_code, 0);
  EXPECT_EQ(run_wheelcheck({"check", "--select", "WC303", w.bad}).exit_code, 1);
  // A warning alone passes, and fails with --strict.
  testing::TempDir wd;
  std::string warned = WheelBuilder("warned", "1.0", "py2.py3-none-any")
                           .add("warned/__init__.py", "")
                           .requires_python(">=3.8")
                           .write(wd.path());
  EXPECT_EQ(run_wheelcheck({"check", warned}).exit_code, 0);
  EXPECT_EQ(run_wheelcheck({"check", "--strict", warned}).exit_code, 1);
  auto colored = run_wheelcheck({"check", "--color", "always", w.bad});
  EXPECT_NE(colored.out.find("\033["), std::string::npos);
  EXPECT_EQ(run_wheelcheck({"check", "--color", "never", w.bad}).out.find("\033["), std::string::npos);
  auto forced = testing::run_command("NO_COLOR= FORCE_COLOR=1 " + testing::shell_quote(WC_BINARY) + " check " +
                                     testing::shell_quote(w.bad));
  EXPECT_NE(forced.out.find("\033["), std::string::npos) << "an empty NO_COLOR does not count";
  auto unwritable = run_wheelcheck({"check", w.bad, "--report", "json:/nonexistent-dir/r.json"});
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_NE(unwritable.err.find("cannot write the report to '/nonexistent-dir/r.json'"), std::string::npos)
      << unwritable.err;
  EXPECT_EQ(unwritable.out, "") << "nothing was checked";
  auto twice = run_wheelcheck({"check", "--json", w.good, w.good, w.dir.path()});
  auto tj = nlohmann::json::parse(twice.out);
  EXPECT_EQ(tj["wheels"].size(), 2u) << twice.out;
  EXPECT_EQ(tj["target_notes"].size(), 2u) << twice.out;
  EXPECT_EQ(run_wheelcheck({"rules", "--format", "yaml"}).exit_code, 2);
  testing::TempDir pd;
  std::string pol = R"({"extends": "strict"})";
  testing::write_file(pd.file("mine.json"), std::vector<uint8_t>(pol.begin(), pol.end()));
  // Typos get the nearest word, every message starts with the tool's name, and --help ends with
  // examples, the environment and the exit codes.
  auto typo = run_wheelcheck({"check", "--jsn", w.good});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("wheelcheck: "), std::string::npos) << typo.err;
  EXPECT_NE(typo.err.find("did you mean '--json'?"), std::string::npos) << typo.err;
  EXPECT_NE(run_wheelcheck({"chek", w.good}).err.find("did you mean 'check'?"), std::string::npos);
  auto pol_typo = run_wheelcheck({"check", "-p", "strickt", w.good});
  EXPECT_EQ(pol_typo.exit_code, 2);
  EXPECT_NE(pol_typo.err.find("did you mean 'strict'?"), std::string::npos) << pol_typo.err;
  EXPECT_NE(pol_typo.err.find("nearest first: strict,"), std::string::npos) << pol_typo.err;
  std::string help = run_wheelcheck({"check", "--help"}).out;
  for (const char* want :
       {"Examples:", "WHEELCHECK_HTTP_WHEEL_TIMEOUT", "NETRC", "NO_COLOR", "WHEELCHECK_POLICY_PATH", "Exit codes:"})
    EXPECT_NE(help.find(want), std::string::npos) << want;
  auto named = run_wheelcheck({"check", "-p", pd.file("mine.json"), w.good});
  EXPECT_NE(named.out.find("(policy " + pd.file("mine.json")), std::string::npos) << named.out;
}

}  // namespace wc
