#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "policy/policy.h"
#include "support/test_support.h"
#include "util/strings.h"
#include "wheel_builder.h"

namespace wc {
namespace {

std::string write(const testing::TempDir& d, const std::string& name, const std::string& text) {
  testing::write_file(d.file(name), std::vector<uint8_t>(text.begin(), text.end()));
  return d.file(name);
}

TEST(Policy, ShippedPoliciesLoad) {
  auto names = shipped_policy_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "default"), names.end());
  for (const auto& n : names) {
    Policy p = load_policy(n);
    EXPECT_EQ(p.name, n);
    EXPECT_NE(std::find(p.sources.begin(), p.sources.end(), "default"), p.sources.end()) << n;
  }
}

// A shipped policy is compiled in and is parsed, not checked, when loaded: here each meets every
// check a policy file meets (the schema, rule IDs, patterns, extends).
TEST(Policy, ShippedPoliciesPassEveryCheckAPolicyFileMeets) {
  auto names = shipped_policy_names();
  ASSERT_GE(names.size(), 5u);
  for (const auto& n : names) {
    const std::string* text = shipped_policy_text(n);
    ASSERT_TRUE(text) << n;
    for (const auto& i : validate_policy_text(*text, n + ".json"))
      ADD_FAILURE() << n << ": " << i.pointer << " (line " << i.line << "): " << i.message;
  }
}

// A policy file is checked whatever its name: one named like a shipped policy is not taken on trust.
TEST(Policy, AFileNamedLikeAShippedPolicyIsStillChecked) {
  testing::TempDir d;
  const std::string path = write(d, "default.json", R"({"name": "mine", "limts": {}})");
  try {
    load_policy(path);
    FAIL() << "a policy file with an unknown key loaded";
  } catch (const PolicyError& e) {
    EXPECT_NE(std::string(e.what()).find("limts"), std::string::npos) << e.what();
  }
}

TEST(Policy, ExtendsOverridesAndConcatenates) {
  testing::TempDir d;
  write(d, "base.json", R"({"extends": "strict", "rules": {"WC302": "warning"}, "limits": {"max_entries": 10}})");
  auto p = load_policy(write(d, "child.json", R"({"extends": "base.json", "name": "child", "rules": {"WC304": "off"},
                                                 "forbid": ["**/*.exe"]})"));
  EXPECT_EQ(p.name, "child");
  EXPECT_EQ(p.severity_of("WC302", Severity::error), Severity::warning);
  EXPECT_EQ(p.severity_of("WC304", Severity::error), Severity::off);
  EXPECT_EQ(p.severity_of("WC107", Severity::warning), Severity::error);  // from strict
  EXPECT_EQ(p.limits.max_entries, 10u);
  EXPECT_EQ(p.limits.max_compression_ratio, 50.0);  // from default (PyPI's limit)
  ASSERT_FALSE(p.forbid.empty());
  EXPECT_EQ(p.forbid.back().glob, "**/*.exe");
  size_t pycache = std::count_if(p.forbid.begin(), p.forbid.end(),
                                 [](const ForbidRule& r) { return r.glob == "**/__pycache__/**"; });
  EXPECT_EQ(pycache, 1u);  // strict's rule for the same glob replaced default's, in place
  auto rule =
      std::find_if(p.forbid.begin(), p.forbid.end(), [](const ForbidRule& r) { return r.glob == "**/__pycache__/**"; });
  EXPECT_EQ(rule->severity, Severity::error);
}

// What the README promises of each shipped policy, on a wheel that shows it.
TEST(Policy, ShippedPoliciesKeepTheirPromises) {
  auto wheel = testing::WheelBuilder("cache", "1.0")
                   .add("cache/__init__.py", "")
                   .add("cache/__pycache__/__init__.cpython-312.pyc", "x");
  auto severity_of_cache = [&](const std::string& policy) {
    for (const auto& f : testing::findings_of(wheel.build(), wheel.filename(), policy))
      if (f.rule == "WC706") return std::optional<Severity>(f.severity);
    return std::optional<Severity>();
  };
  EXPECT_EQ(severity_of_cache("default"), std::optional<Severity>(Severity::warning));
  EXPECT_EQ(severity_of_cache("strict"), std::optional<Severity>(Severity::error)) << "strict: caches are errors";
  auto local = testing::WheelBuilder("loc", "1.0+cu128").add("loc/__init__.py", "");
  auto pypi = testing::findings_of(local.build(), local.filename(), "pypi");
  EXPECT_TRUE(std::any_of(pypi.begin(), pypi.end(),
                          [](const Finding& f) { return f.rule == "WC108" && f.severity == Severity::error; }))
      << "pypi: local versions are refused: " << testing::dump(pypi);
}

TEST(Policy, ValidationNamesPointerAndLine) {
  std::string text =
      "{\n  \"name\": \"x\",\n  \"limts\": {},\n  \"rules\": {\n    \"WC999\": \"error\",\n    \"WC302\": \"fatal\"\n  "
      "},\n  \"limits\": {\"max_entries\": -1}\n}\n";
  auto issues = validate_policy_text(text, "p.json");
  auto find = [&](const std::string& ptr) -> const PolicyIssue* {
    for (const auto& i : issues)
      if (i.pointer == ptr) return &i;
    return nullptr;
  };
  const PolicyIssue* typo = find("/limts");
  ASSERT_TRUE(typo);
  EXPECT_EQ(typo->line, 3);
  EXPECT_NE(typo->message.find("did you mean 'limits'"), std::string::npos) << typo->message;
  ASSERT_TRUE(find("/rules/WC999"));
  EXPECT_EQ(find("/rules/WC999")->line, 5);
  EXPECT_NE(find("/rules/WC999")->message.find("unknown rule ID"), std::string::npos);
  ASSERT_TRUE(find("/rules/WC302"));
  EXPECT_EQ(find("/rules/WC302")->line, 6);
  ASSERT_TRUE(find("/limits/max_entries"));
  EXPECT_EQ(find("/limits/max_entries")->line, 8);
}

TEST(Policy, BrokenJsonReportsLine) {
  auto issues = validate_policy_text("{\n  \"name\": \"x\",\n  \"rules\": {,}\n}\n", "p.json");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].line, 3);
  EXPECT_NE(issues[0].message.find("not valid JSON"), std::string::npos);
}

TEST(Policy, LoadErrors) {
  testing::TempDir d;
  EXPECT_THROW(load_policy("no-such-policy"), PolicyError);
  write(d, "a.json", R"({"extends": "b.json"})");
  write(d, "b.json", R"({"extends": "a.json"})");
  try {
    load_policy(d.file("a.json"));
    FAIL() << "cycle not detected";
  } catch (const PolicyError& e) {
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
  }
  write(d, "bad.json", R"({"rules": {"WC302": "loud"}})");
  EXPECT_THROW(load_policy(d.file("bad.json")), PolicyError);
}

// The schema shipped for editors and the loader must agree: every rule in the catalogue can be
// configured, and every limit the loader reads is declared in the schema.
TEST(Policy, SchemaMatchesLoader) {
  auto schema = nlohmann::json::parse(policy_schema_text());
  auto limits = schema["properties"]["limits"]["properties"];
  for (const char* k : {"max_compression_ratio", "ratio_min_entry_bytes", "max_total_uncompressed_bytes", "max_entries",
                        "max_wheel_bytes", "max_path_length", "max_metadata_bytes", "max_analysis_bytes"})
    EXPECT_TRUE(limits.contains(k)) << k;
  for (const auto& r : wheelcheck_rules()) {
    std::string text = std::string("{\"rules\": {\"") + r.id + "\": \"off\"}}";
    EXPECT_TRUE(validate_policy_text(text, "x").empty()) << r.id;
  }
}

TEST(Glob, Matching) {
  EXPECT_TRUE(glob_match("**/__pycache__/**", "pkg/sub/__pycache__/x.pyc"));
  EXPECT_TRUE(glob_match("**/__pycache__/**", "__pycache__/x.pyc"));
  EXPECT_TRUE(glob_match("**/*.a", "lib.a"));
  EXPECT_TRUE(glob_match("tests/**", "tests/unit/test_x.py"));
  EXPECT_FALSE(glob_match("tests/**", "pkg/tests/test_x.py"));
  EXPECT_FALSE(glob_match("*.py", "pkg/x.py"));
  EXPECT_TRUE(glob_match("pkg/[a-c]?.py", "pkg/b1.py"));
  EXPECT_TRUE(glob_match("**/", "a/"));
  EXPECT_TRUE(glob_match("a/**/b", "a/b"));
  EXPECT_TRUE(glob_match("a/**/b", "a/x/y/b"));
  EXPECT_FALSE(glob_match("a/**/b", "a/xb"));
  EXPECT_TRUE(glob_match("x[/]y", "x/y"));  // a class matches '/' like any other character
}

// The recursive backtracking matcher the compiled one replaced, as the reference semantics on
// small inputs (exponential on hostile ones: never given those).
bool reference_glob(std::string_view p, size_t pi, std::string_view s, size_t si) {
  while (pi < p.size()) {
    char pc = p[pi];
    if (pc == '*') {
      bool dbl = pi + 1 < p.size() && p[pi + 1] == '*';
      size_t next = pi + (dbl ? 2 : 1);
      if (dbl && next < p.size() && p[next] == '/' && reference_glob(p, next + 1, s, si)) return true;
      for (size_t k = si;; ++k) {
        if (reference_glob(p, next, s, k)) return true;
        if (k >= s.size() || (!dbl && s[k] == '/')) return false;
      }
    }
    if (si >= s.size()) return false;
    if (pc == '?') {
      if (s[si] == '/') return false;
    } else if (pc != s[si]) {
      return false;
    }
    ++pi, ++si;
  }
  return si == s.size();
}

TEST(Glob, AgreesWithTheBacktrackingMatcherOnEverySmallCase) {
  // Every pattern of up to 5 tokens from {a, /, ?, *, **} against every path of up to 5
  // characters from {a, b, /}: 3,906 patterns x 364 paths.
  std::vector<std::string> tokens{"a", "/", "?", "*", "**"}, patterns{""}, paths{""};
  for (size_t len = 0, from = 0; len < 5; ++len) {
    size_t to = patterns.size();
    for (size_t i = from; i < to; ++i)
      for (const auto& t : tokens) patterns.push_back(patterns[i] + t);
    from = to;
  }
  for (size_t len = 0, from = 0; len < 5; ++len) {
    size_t to = paths.size();
    for (size_t i = from; i < to; ++i)
      for (char c : {'a', 'b', '/'}) paths.push_back(paths[i] + c);
    from = to;
  }
  size_t disagreements = 0;
  for (const auto& p : patterns)
    for (const auto& s : paths)
      if (glob_match(p, s) != reference_glob(p, 0, s, 0) && ++disagreements < 10)
        ADD_FAILURE() << "'" << p << "' against '" << s << "': " << glob_match(p, s);
  EXPECT_EQ(disagreements, 0u);
}

// Sixteen "**a" then "**b" against a name of a's: exponential for a backtracking matcher (it never
// ended), linear in the path here; a policy's forbid list is untrusted input.
TEST(Glob, HostilePatternsCostTextTimesPattern) {
  std::string p;
  for (int i = 0; i < 16; ++i) p += "**a";
  p += "**b";
  std::string name(20000, 'a');
  EXPECT_FALSE(glob_match(p, name));
  EXPECT_TRUE(glob_match(p, name + "b"));
  std::string stars(2000, '*');
  EXPECT_TRUE(glob_match(stars + "?", name));
}

}  // namespace
}  // namespace wc
