// PEP 770 SBOMs (issue 33): documents read in each format, PEP 770's SHOULDs, coverage of bundled
// libraries (auditwheel's bom-ref path hash, locations, names never of language packages), claims
// the wheel contradicts, build paths, one identity per grafted library across a run, and hostile
// documents that must stay findings.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "rules/supply_chain/sbom_rules.h"
#include "support/fixtures.h"
#include "support/test_support.h"
#include "util/digest.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/sbom.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using json = nlohmann::json;
using testing::has_rule;
using testing::run_wheelcheck;
using testing::says;
using testing::WheelBuilder;

std::string sha256_hex(const std::string& s) {
  Digest d("sha256");
  d.update(s.data(), s.size());
  return d.digest_hex();
}

const std::string kTag = "cp312-cp312-manylinux_2_28_x86_64";
const std::string kFile = "demo-1.0-" + kTag + ".whl";

std::string elf() {
  auto b = testing::tiny_elf(true, false, 62);
  return std::string(b.begin(), b.end());
}

// auditwheel's document (src/auditwheel/sboms.py): the primary, then one component per grafted
// library whose bom-ref is purl#sha256(source path).
json auditwheel_doc(const std::vector<json>& libs, const std::string& file_name = kFile) {
  std::string wheel_purl = "pkg:pypi/demo@1.0?file_name=" + file_name;
  json primary = {
      {"type", "library"}, {"bom-ref", wheel_purl}, {"name", "demo"}, {"version", "1.0"}, {"purl", wheel_purl}};
  json comps = json::array({primary});
  json deps = json::array({{{"ref", wheel_purl}, {"dependsOn", json::array()}}});
  for (const auto& l : libs) {
    comps.push_back(l);
    deps[0]["dependsOn"].push_back(l["bom-ref"]);
    deps.push_back({{"ref", l["bom-ref"]}});
  }
  return {{"bomFormat", "CycloneDX"},
          {"specVersion", "1.4"},
          {"version", 1},
          {"metadata",
           {{"component", primary},
            {"timestamp", "2026-01-01T00:00:00Z"},
            {"tools", json::array({{{"name", "auditwheel"}, {"version", "6.5.0"}}})}}},
          {"components", comps},
          {"dependencies", deps}};
}

json rpm_lib(const std::string& pkg, const std::string& version, const std::string& source_path) {
  std::string purl = "pkg:rpm/almalinux/" + pkg + "@" + version;
  return {{"type", "library"},
          {"bom-ref", purl + "#" + sha256_hex(source_path)},
          {"name", pkg},
          {"version", version},
          {"purl", purl}};
}

WheelBuilder grafted_wheel() {
  WheelBuilder w("demo", "1.0", kTag);
  w.purelib(false);
  w.add("demo/__init__.py", "");
  w.add("demo.libs/libssl-0a1b2c3d.so.3", elf());
  w.add("demo.libs/libcrypto-4e5f6a7b.so.3", elf());
  w.add("demo.libs/libz-8c9d0e1f.so.1.2.13", elf());
  return w;
}

std::vector<Finding> sbom_findings(const std::vector<Finding>& all) {
  std::vector<Finding> out;
  for (const auto& f : all)
    if (f.rule.starts_with("WC9")) out.push_back(f);
  return out;
}

TEST(Sbom, AuditwheelCoverageByTheSourcePathHash) {
  auto w = grafted_wheel();
  // libcrypto from /usr/lib64 (a manylinux_2_28 image); zlib is left out, as auditwheel#728 leaves
  // out what no package owns. libssl is in the package that declares libcrypto: declared by name.
  json doc = auditwheel_doc({rpm_lib("openssl-libs", "1:3.0.7-27.el9", "/usr/lib64/libcrypto.so.3")});
  w.add(w.dist_info() + "/sboms/auditwheel.cdx.json", doc.dump());
  auto fs = sbom_findings(testing::findings_of(w.build(), kFile));
  ASSERT_EQ(fs.size(), 1u) << testing::dump(fs);
  EXPECT_EQ(fs[0].rule, "WC903");
  EXPECT_EQ(fs[0].severity, Severity::warning);
  EXPECT_TRUE(says(fs, "declared 2 of 3 bundled libraries; undeclared: demo.libs/libz-8c9d0e1f.so.1.2.13 (zlib)"))
      << testing::dump(fs);
  auto f = testing::facts_of(w.build(), kFile);
  SbomCoverage c = sbom_coverage(f);
  ASSERT_EQ(c.bundled.size(), 3u);
  std::map<std::string, std::string> how;
  for (size_t i = 0; i < c.bundled.size(); ++i) how[c.bundled[i].stem] = c.declared_by[i] ? c.declared_by[i]->how : "";
  EXPECT_EQ(how["libcrypto"], "bom-ref path hash");
  EXPECT_EQ(how["libssl"], "name");
  EXPECT_EQ(how["libz"], "");
  // zlib from /lib64 by the hash of the file's real path (not the soname's).
  auto w1 = grafted_wheel();
  w1.add(w1.dist_info() + "/sboms/auditwheel.cdx.json",
         auditwheel_doc({rpm_lib("zlib-ng-compat", "2.1.6", "/lib64/libz.so.1.2.13")}).dump());
  auto c1 = sbom_coverage(testing::facts_of(w1.build(), kFile));
  bool libz = false;
  for (size_t i = 0; i < c1.bundled.size(); ++i) {
    if (c1.bundled[i].stem == "libz") {
      libz = true;
      EXPECT_EQ(c1.declared_by[i] ? c1.declared_by[i]->how : "", "bom-ref path hash");
    }
  }
  EXPECT_TRUE(libz);
  // A hash of another path links nothing.
  json wrong = auditwheel_doc({rpm_lib("unrelated", "2.1.6", "/lib64/libz.so.1")});
  auto w2 = grafted_wheel();
  w2.add(w2.dist_info() + "/sboms/auditwheel.cdx.json", wrong.dump());
  EXPECT_TRUE(says(testing::findings_of(w2.build(), kFile), "declared 0 of 3"));
}

TEST(Sbom, CoverageIsAnErrorWhenThePolicyRequiresIt) {
  testing::TempDir dir;
  auto w = grafted_wheel();
  w.add(w.dist_info() + "/sboms/auditwheel.cdx.json", auditwheel_doc({}).dump());
  std::string path = w.write(dir.path());
  std::ofstream(dir.file("p.json")) << R"({"extends": "default", "sbom": {"require_coverage": true}})";
  auto r = run_wheelcheck({"check", "--policy", dir.file("p.json"), "--format", "json", path});
  auto j = json::parse(r.out);
  bool error = false;
  for (const auto& f : j["wheels"][0]["findings"])
    if (f["rule"] == "WC903") error = f["severity"] == "error";
  EXPECT_TRUE(error) << r.out;
  EXPECT_EQ(r.exit_code, 1);
  // The shipped strict policy asks for coverage too.
  auto s = run_wheelcheck({"check", "--policy", "strict", path});
  EXPECT_NE(s.out.find("error   WC903"), std::string::npos) << s.out;
}

TEST(Sbom, NoSbomIsANoteUnlessRequired) {
  testing::TempDir dir;
  std::string path = grafted_wheel().write(dir.path());
  auto r = run_wheelcheck({"check", "--format", "json", path});
  auto j = json::parse(r.out);
  const auto& item = j["wheels"][0];
  EXPECT_EQ(item["sbom"]["documents"], 0);
  EXPECT_EQ(item["sbom"]["bundled"], 3);
  EXPECT_EQ(item["sbom"]["declared"], 0);
  ASSERT_EQ(item["sbom"]["undeclared"].size(), 3u);
  EXPECT_EQ(item["sbom"]["undeclared"][0], "demo.libs/libcrypto-4e5f6a7b.so.3");  // security-relevant first
  EXPECT_EQ(item["sbom"]["undeclared"][2], "demo.libs/libz-8c9d0e1f.so.1.2.13");
  EXPECT_NE(item["notes"].dump().find("no SBOM (PEP 770) declares its 3 bundled libraries"), std::string::npos)
      << r.out;
  for (const auto& f : item["findings"]) EXPECT_FALSE(f["rule"].get<std::string>().starts_with("WC9")) << f;
  std::ofstream(dir.file("p.json")) << R"({"extends": "default", "sbom": {"require": true}})";
  auto req = run_wheelcheck({"check", "--policy", dir.file("p.json"), path});
  EXPECT_EQ(req.exit_code, 1);
  EXPECT_NE(req.out.find("error   WC903"), std::string::npos) << req.out;
  EXPECT_NE(req.out.find("(sbom.require)"), std::string::npos) << req.out;
}

TEST(Sbom, StaleFileNameAndVersionsTheFileNamesContradict) {
  auto w = grafted_wheel();
  json doc = auditwheel_doc({rpm_lib("openssl-libs", "3.0.7-27.el9", "/usr/lib64/libssl.so.3"),
                             rpm_lib("openssl-libs", "1.1.1k-12.el8", "/usr/lib64/libcrypto.so.3"),
                             rpm_lib("zlib", "1.2.11-40.el9", "/lib64/libz.so.1.2.13")},
                            "demo-1.0-cp312-cp312-linux_x86_64.whl");
  w.add(w.dist_info() + "/sboms/auditwheel.cdx.json", doc.dump());
  auto fs = sbom_findings(testing::findings_of(w.build(), kFile));
  EXPECT_TRUE(says(fs, "file_name=demo-1.0-cp312-cp312-linux_x86_64.whl, but this wheel is " + kFile))
      << testing::dump(fs);
  EXPECT_TRUE(
      says(fs, "zlib 1.2.11-40.el9 declares demo.libs/libz-8c9d0e1f.so.1.2.13, whose file name says zlib 1.2.13"))
      << testing::dump(fs);
  EXPECT_TRUE(says(fs,
                   "openssl-libs 1.1.1k-12.el8 declares demo.libs/libcrypto-4e5f6a7b.so.3, whose file name says "
                   "OpenSSL 3"))
      << testing::dump(fs);
  EXPECT_FALSE(says(fs, "libssl-0a1b2c3d.so.3, whose")) << testing::dump(fs);  // 3.0.7 is OpenSSL 3
  EXPECT_FALSE(has_rule(fs, "WC903"));
  for (const auto& f : fs) EXPECT_EQ(f.severity, Severity::error) << f.message;
}

// What the binary says in its bytes outranks its file name: any of its version strings agrees, none
// contradicts. zlib-ng's compat library says zlib's API version (1.3.1.zlib-ng) while its package is
// zlib-ng 2.2.3: not a contradiction.
TEST(Sbom, VersionsTheBinariesSay) {
  WheelBuilder w("demo", "1.0", kTag);
  w.purelib(false);
  w.add("demo/__init__.py", "");
  w.add("demo.libs/libcrypto-4e5f6a7b.so.3", elf() + std::string(70000, '\0') + "OpenSSL 1.1.1k  FIPS 25 Mar 2021");
  w.add("demo.libs/libz-8c9d0e1f.so.1", elf() + " deflate 1.3.1.zlib-ng Copyright 1995-2024 ");
  w.add(w.dist_info() + "/sboms/auditwheel.cdx.json",
        auditwheel_doc({rpm_lib("openssl-libs", "3.0.7-27.el9", "/usr/lib64/libcrypto.so.3"),
                        rpm_lib("zlib-ng-compat", "2.2.3-1.el9", "/lib64/libz.so.1")})
            .dump());
  auto f = testing::facts_of(w.build(), kFile);
  ASSERT_NE(f.find_entry("demo.libs/libcrypto-4e5f6a7b.so.3"), nullptr);
  EXPECT_EQ(f.find_entry("demo.libs/libcrypto-4e5f6a7b.so.3")->version_strings, std::vector<std::string>{"1.1.1k"});
  EXPECT_EQ(f.find_entry("demo.libs/libz-8c9d0e1f.so.1")->version_strings, std::vector<std::string>{"1.3.1.zlib-ng"});
  auto fs = sbom_findings(testing::findings_of(w.build(), kFile));
  ASSERT_EQ(fs.size(), 1u) << testing::dump(fs);
  EXPECT_TRUE(
      says(fs, "openssl-libs 3.0.7-27.el9 declares demo.libs/libcrypto-4e5f6a7b.so.3, which says it is OpenSSL 1.1.1k"))
      << testing::dump(fs);
}

// An SPDX 2.3 document describing demo 1.0, which DEPENDS_ON the package `zlib`; `libz` is one file
// (its path and sha256), `zlib_to_libz` the relationship that ties the two.
json spdx23_demo(const json& zlib, const std::string& libz_path, const std::string& libz_sha256,
                 const json& zlib_to_libz, const json& more_relationships = json::array()) {
  json relationships = {
      {{"spdxElementId", "SPDXRef-DOCUMENT"},
       {"relationshipType", "DESCRIBES"},
       {"relatedSpdxElement", "SPDXRef-demo"}},
      {{"spdxElementId", "SPDXRef-demo"}, {"relationshipType", "DEPENDS_ON"}, {"relatedSpdxElement", "SPDXRef-zlib"}},
      zlib_to_libz};
  for (const auto& r : more_relationships) relationships.push_back(r);
  json demo = {{"SPDXID", "SPDXRef-demo"},
               {"name", "demo"},
               {"versionInfo", "1.0"},
               {"downloadLocation", "NOASSERTION"},
               {"externalRefs",
                {{{"referenceCategory", "PACKAGE-MANAGER"},
                  {"referenceType", "purl"},
                  {"referenceLocator", "pkg:pypi/demo@1.0"}}}}};
  return {{"spdxVersion", "SPDX-2.3"},
          {"dataLicense", "CC0-1.0"},
          {"SPDXID", "SPDXRef-DOCUMENT"},
          {"name", "demo"},
          {"documentNamespace", "https://example.org/demo-1.0"},
          {"creationInfo", {{"created", "2026-01-01T00:00:00Z"}, {"creators", {"Tool: demo-builder-1.0"}}}},
          {"packages", {demo, zlib}},
          {"files",
           {{{"SPDXID", "SPDXRef-libz"},
             {"fileName", libz_path},
             {"checksums", {{{"algorithm", "SHA256"}, {"checksumValue", libz_sha256}}}}}}},
          {"relationships", relationships}};
}

TEST(Sbom, Spdx23FilesAndTheirHashes) {
  const std::string lib = elf();
  auto make = [&](const std::string& hash) {
    json doc = spdx23_demo({{"SPDXID", "SPDXRef-zlib"},
                            {"name", "zlib"},
                            {"versionInfo", "1.2.13"},
                            {"downloadLocation", "https://zlib.net/zlib-1.2.13.tar.gz"}},
                           "./demo.libs/libz-8c9d0e1f.so.1.2.13", hash,
                           {{"spdxElementId", "SPDXRef-libz"},
                            {"relationshipType", "CONTAINED_BY"},
                            {"relatedSpdxElement", "SPDXRef-zlib"}});
    WheelBuilder w("demo", "1.0", kTag);
    w.purelib(false);
    w.add("demo/__init__.py", "");
    w.add("demo.libs/libz-8c9d0e1f.so.1.2.13", lib);
    w.add(w.dist_info() + "/sboms/demo.spdx.json", doc.dump());
    return w.build();
  };
  auto good = sbom_findings(testing::findings_of(make(sha256_hex(lib)), kFile));
  EXPECT_TRUE(good.empty()) << testing::dump(good);
  auto f = testing::facts_of(make(sha256_hex(lib)), kFile);
  ASSERT_EQ(f.sboms.size(), 1u);
  EXPECT_EQ(f.sboms[0].format, "SPDX");
  EXPECT_EQ(f.sboms[0].spec_version, "2.3");
  SbomCoverage c = sbom_coverage(f);
  ASSERT_EQ(c.declared(), 1u);
  EXPECT_EQ(c.declared_by[0]->how, "contained file");  // zlib CONTAINS the file (CONTAINED_BY reversed)
  auto bad = sbom_findings(testing::findings_of(make(sha256_hex("other bytes")), kFile));
  ASSERT_TRUE(has_rule(bad, "WC904")) << testing::dump(bad);
  EXPECT_TRUE(says(bad, "gives sha256 " + sha256_hex("other bytes").substr(0, 16))) << testing::dump(bad);
}

TEST(Sbom, Spdx3JsonLd) {
  json doc = {
      {"@context", "https://spdx.org/rdf/3.0.1/spdx-context.jsonld"},
      {"@graph",
       {{{"type", "CreationInfo"},
         {"@id", "_:creationinfo"},
         {"created", "2026-01-01T00:00:00Z"},
         {"createdBy", {"urn:spdx.dev:agent"}},
         {"createdUsing", {"urn:spdx.dev:tool"}},
         {"specVersion", "3.0.1"}},
        {{"type", "SpdxDocument"},
         {"spdxId", "urn:doc"},
         {"creationInfo", "_:creationinfo"},
         {"rootElement", {"urn:pkg-demo"}}},
        {{"type", "software_Package"},
         {"spdxId", "urn:pkg-demo"},
         {"creationInfo", "_:creationinfo"},
         {"name", "demo"},
         {"software_packageVersion", "1.0"},
         {"software_packageUrl", "pkg:pypi/demo@1.0"}},
        {{"type", "software_Package"},
         {"spdxId", "urn:pkg-ssl"},
         {"creationInfo", "_:creationinfo"},
         {"name", "openssl"},
         {"software_packageVersion", "3.0.7"},
         {"externalIdentifier",
          {{{"externalIdentifierType", "cpe23"}, {"identifier", "cpe:2.3:a:openssl:openssl:3.0.7:*:*:*:*:*:*:*"}}}}},
        {{"type", "Relationship"},
         {"spdxId", "urn:rel"},
         {"creationInfo", "_:creationinfo"},
         {"from", "urn:pkg-demo"},
         {"relationshipType", "dependsOn"},
         {"to", {"urn:pkg-ssl"}}}}}};
  auto d = parse_sbom("x", doc.dump());
  EXPECT_TRUE(d.errors.empty()) << json(d.errors).dump();
  EXPECT_EQ(d.format, "SPDX");
  EXPECT_EQ(d.spec_version, "3.0.1");
  ASSERT_GE(d.primary, 0);
  EXPECT_EQ(d.components[d.primary].purl, "pkg:pypi/demo@1.0");
  EXPECT_EQ(d.component_count(), 2u);
  EXPECT_TRUE(d.has_created && d.has_tool);
  // openssl by name declares libssl and libcrypto: the package is not a language package.
  auto w = grafted_wheel();
  w.add(w.dist_info() + "/sboms/demo.spdx3.json", doc.dump());
  auto fs = sbom_findings(testing::findings_of(w.build(), kFile));
  EXPECT_TRUE(says(fs, "declared 2 of 3 bundled libraries; undeclared: demo.libs/libz-8c9d0e1f.so.1.2.13"))
      << testing::dump(fs);
}

TEST(Sbom, LanguagePackagesNeverDeclareALibraryByName) {
  // cryptography's cargo SBOM names the Rust crate `openssl`: not OpenSSL.
  json doc = auditwheel_doc({{{"type", "library"},
                              {"bom-ref", "openssl-crate"},
                              {"name", "openssl"},
                              {"version", "0.10.72"},
                              {"purl", "pkg:cargo/openssl@0.10.72"}}});
  auto w = grafted_wheel();
  w.add(w.dist_info() + "/sboms/cargo.cdx.json", doc.dump());
  auto fs = sbom_findings(testing::findings_of(w.build(), kFile));
  EXPECT_TRUE(says(fs, "declared 0 of 3")) << testing::dump(fs);
}

TEST(Sbom, WhatTheFormatRequiresAndNothingMore) {
  json doc = auditwheel_doc({});
  doc["components"].push_back({{"type", "gadget"}, {"version", "1"}});  // no name, an unknown type
  doc["specVersion"] = "1.6";
  doc["x-vendor-field"] = {{"anything", true}};  // unknown fields: never a finding
  doc["metadata"]["component"]["x-extra"] = 1;
  auto d = parse_sbom("x", doc.dump());
  ASSERT_EQ(d.errors.size(), 2u) << json(d.errors).dump();
  EXPECT_NE(d.errors[0].find("/components/1/type: 'gadget' is not a CycloneDX component type"), std::string::npos)
      << d.errors[0];
  EXPECT_NE(d.errors[1].find("/components/1: required field 'name' is missing"), std::string::npos) << d.errors[1];
  EXPECT_TRUE(d.warnings.empty()) << json(d.warnings).dump();
  // A newer version is read by 1.7's fields: what 1.7 does not list may be new there (a warning).
  doc["specVersion"] = "1.9";
  auto n = parse_sbom("x", doc.dump());
  ASSERT_EQ(n.errors.size(), 1u) << json(n.errors).dump();
  EXPECT_NE(n.errors[0].find("required field 'name' is missing"), std::string::npos) << n.errors[0];
  ASSERT_EQ(n.warnings.size(), 2u) << json(n.warnings).dump();
  EXPECT_NE(n.warnings[0].find("newer than the versions known here"), std::string::npos);
  EXPECT_NE(n.warnings[1].find("'gadget' is not a CycloneDX component type (in 1.7)"), std::string::npos)
      << n.warnings[1];
  // A digest whose length its algorithm cannot give is not compared (the schema allows it).
  json sha = auditwheel_doc({{{"type", "library"},
                              {"bom-ref", "x"},
                              {"name", "x"},
                              {"hashes", {{{"alg", "SHA-256"}, {"content", std::string(40, 'a')}}}}}});
  auto h = parse_sbom("x", sha.dump());
  EXPECT_TRUE(h.errors.empty()) << json(h.errors).dump();
  ASSERT_EQ(h.warnings.size(), 1u);
  EXPECT_NE(h.warnings[0].find("40 digits, but SHA-256 gives 64; not compared"), std::string::npos) << h.warnings[0];
  EXPECT_TRUE(h.components[1].hashes.empty());
  // Types: a version that is not a string, hashes that are not hex.
  json typed = auditwheel_doc({{{"type", "library"},
                                {"bom-ref", "x"},
                                {"name", "x"},
                                {"version", 3},
                                {"hashes", {{{"alg", "SHA-256"}, {"content", "zz"}}}}}});
  auto t = parse_sbom("x", typed.dump());
  ASSERT_EQ(t.errors.size(), 2u) << json(t.errors).dump();
  EXPECT_NE(t.errors[0].find("/components/1/version: must be a string, not number"), std::string::npos) << t.errors[0];
  EXPECT_NE(t.errors[1].find("not a hexadecimal digest"), std::string::npos) << t.errors[1];
  // The BOM's version is optional from 1.4 on (bom-1.4.schema.json requires bomFormat and
  // specVersion only; CycloneDxSchemas below asks the schema itself).
  json v14 = auditwheel_doc({});
  v14.erase("version");
  EXPECT_TRUE(parse_sbom("x", v14.dump()).errors.empty());
  // SPDX 2 without creationInfo, a relationship missing a field.
  auto s = parse_sbom("x", R"({"spdxVersion": "SPDX-2.3", "SPDXID": "SPDXRef-DOCUMENT", "name": "n",
    "dataLicense": "CC0-1.0", "documentNamespace": "https://x", "relationships": [{"spdxElementId": "a"}]})");
  ASSERT_EQ(s.errors.size(), 3u);
  EXPECT_NE(s.errors[0].find(": required field 'creationInfo' is missing"), std::string::npos) << s.errors[0];
  EXPECT_NE(s.errors[1].find("/relationships/0: required field 'relationshipType' is missing"), std::string::npos);
}

// WC901 against the official CycloneDX schemas (cyclonedx-python-lib's vendored bom-1.x.schema.json,
// pinned by hash, tests/tools/cdx_schema_oracle.py): every document the schema rejects for a
// required field, a type or an enum, wheelcheck rejects too, and every one it accepts wheelcheck
// accepts. The one designed difference: unknown fields, which the 1.4+ schemas forbid and PEP 770
// says a tool must not reject.
TEST(Sbom, CycloneDxSchemasAgree) {
  testing::TempDir dir;
  json lib = {{"type", "library"},
              {"bom-ref", "l"},
              {"name", "zlib"},
              {"version", "1.3.1"},
              {"purl", "pkg:generic/zlib@1.3.1"}};
  auto with = [&](const std::string& spec, const std::function<void(json&)>& edit) {
    json d = auditwheel_doc({lib});
    d["specVersion"] = spec;
    edit(d);
    return d;
  };
  struct Case {
    const char* name;
    json doc;
  };
  std::vector<Case> cases = {
      {"auditwheel 1.4", with("1.4", [](json&) {})},
      {"1.6 with evidence, nested components and hashes",
       with("1.6",
            [](json& d) {
              d["metadata"]["tools"] = {{"components", {{{"type", "application"}, {"name", "auditwheel"}}}}};
              d["components"][1]["evidence"] = {{"occurrences", {{{"location", "demo.libs/libz.so"}}}}};
              d["components"][1]["hashes"] = {{{"alg", "SHA-256"}, {"content", std::string(64, 'a')}}};
              d["components"][1]["components"] = {{{"type", "file"}, {"name", "x"}}};
            })},
      {"1.7", with("1.7", [](json&) {})},
      {"1.5 without the BOM version", with("1.5", [](json& d) { d.erase("version"); })},
      {"a component without a name", with("1.6", [](json& d) { d["components"][1].erase("name"); })},
      {"an unknown component type", with("1.4", [](json& d) { d["components"][1]["type"] = "gadget"; })},
      {"a version that is a number", with("1.6", [](json& d) { d["components"][1]["version"] = 3; })},
      {"a digest that is not hex", with("1.6",
                                        [](json& d) {
                                          d["components"][1]["hashes"] = {{{"alg", "SHA-256"}, {"content", "zz"}}};
                                        })},
      {"a digest of another length", with("1.6",
                                          [](json& d) {
                                            d["components"][1]["hashes"] = {{{"alg", "SHA-256"}, {"content", "abcd"}}};
                                          })},
      {"an unknown hash algorithm",
       with("1.6",
            [](json& d) {
              d["components"][1]["hashes"] = {{{"alg", "SHA256"}, {"content", std::string(64, 'a')}}};
            })},
      {"an unknown scope", with("1.6", [](json& d) { d["components"][1]["scope"] = "sometimes"; })},
      {"a dependency without ref", with("1.6",
                                        [](json& d) {
                                          d["dependencies"].push_back({{"dependsOn", json::array()}});
                                        })},
      {"BOM version 0", with("1.6", [](json& d) { d["version"] = 0; })},
      {"a serial number that is not a URN UUID", with("1.6", [](json& d) { d["serialNumber"] = "42"; })},
      {"1.4 tools in the 1.5 object form", with("1.4",
                                                [](json& d) {
                                                  d["metadata"]["tools"] = {{"components", json::array()}};
                                                })},
      {"an unknown field", with("1.6", [](json& d) { d["components"][1]["x-vendor"] = 1; })},
  };
  std::string args;
  for (size_t i = 0; i < cases.size(); ++i) {
    std::ofstream(dir.file(std::to_string(i) + ".json")) << cases[i].doc.dump();
    args += " " + testing::shell_quote(dir.file(std::to_string(i) + ".json"));
  }
  const char* home = std::getenv("HOME");
  std::string cache = std::string(home ? home : "/tmp") + "/.cache/wheelcheck-tests/schemas";
  auto r = testing::run_command("python3 " +
                                testing::shell_quote(std::string(WC_SOURCE_DIR) + "/tests/tools/cdx_schema_oracle.py") +
                                " " + testing::shell_quote(cache) + args);
  if (r.exit_code == 3) GTEST_SKIP() << "the CycloneDX schemas or jsonschema cannot be had: " << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> verdicts;
  for (auto line : split(r.out, '\n'))
    if (!line.empty()) verdicts.emplace_back(line);
  ASSERT_EQ(verdicts.size(), cases.size()) << r.out;
  for (size_t i = 0; i < cases.size(); ++i) {
    SbomDocument d = parse_sbom("x", cases[i].doc.dump());
    const bool schema_valid = verdicts[i] == "valid";
    if (std::string(cases[i].name) == "an unknown field") {
      EXPECT_NE(verdicts[i].find("Additional properties are not allowed"), std::string::npos) << verdicts[i];
      EXPECT_TRUE(d.errors.empty()) << json(d.errors).dump();
      continue;
    }
    EXPECT_EQ(d.errors.empty(), schema_valid)
        << cases[i].name << "\nschema: " << verdicts[i] << "\nwheelcheck: " << json(d.errors).dump();
  }
}

TEST(Sbom, UnknownFormatsAreANoteNeverAFinding) {
  testing::TempDir dir;
  WheelBuilder w("demo", "1.0");
  w.add("demo/__init__.py", "");
  w.add(w.dist_info() + "/sboms/bom.cdx.xml",
        "<?xml version=\"1.0\"?><bom xmlns=\"http://cyclonedx.org/schema/bom/1.5\"></bom>");
  w.add(w.dist_info() + "/sboms/other.json", R"({"sbomFormat": "SWID-ish", "items": []})");
  std::string path = w.write(dir.path());
  auto r = run_wheelcheck({"check", "--format", "json", path});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  auto j = json::parse(r.out);
  const auto& item = j["wheels"][0];
  EXPECT_EQ(item["findings"].size(), 0u) << item.dump();
  EXPECT_EQ(item["sbom"]["unknown_documents"], 2);
  EXPECT_NE(item["notes"].dump().find("2 SBOMs in a format wheelcheck does not read"), std::string::npos)
      << item.dump();
  auto ins = run_wheelcheck({"inspect", path});
  EXPECT_NE(ins.out.find("bom.cdx.xml: CycloneDX XML (not read)"), std::string::npos) << ins.out;
}

TEST(Sbom, Pep770Shoulds) {
  WheelBuilder w("demo", "1.0");
  w.add("demo/__init__.py", "");
  json doc = {
      {"bomFormat", "CycloneDX"},
      {"specVersion", "1.6"},
      {"metadata",
       {{"component", {{"type", "library"}, {"bom-ref", "p"}, {"name", "other"}, {"purl", "pkg:pypi/other@2.0"}}}}},
      {"components",
       {{{"type", "library"}, {"bom-ref", "a"}, {"name", "liba"}},
        {{"type", "library"}, {"bom-ref", "b"}, {"name", "libb"}, {"version", "1"}, {"cpe", "cpe:2.3:a:b:b:1"}}}},
      {"dependencies", {{{"ref", "p"}, {"dependsOn", {"b"}}}}}};
  // 50 file entries (virtualenv lists 1,768): not components, nothing asked of them.
  for (int i = 0; i < 50; ++i)
    doc["components"].push_back({{"type", "file"}, {"name", "demo/f" + std::to_string(i) + ".py"}});
  w.add(w.dist_info() + "/sboms/x.cdx.json", doc.dump());
  auto fs = sbom_findings(testing::findings_of(w.build(), "demo-1.0-py3-none-any.whl"));
  ASSERT_TRUE(has_rule(fs, "WC902")) << testing::dump(fs);
  for (const char* part :
       {"no creation time", "no tool", "the primary component is pkg:pypi/other@2.0, not this package",
        "1 of 2 components have no version (liba)", "1 of 2 components have no purl, CPE or download URL (liba)",
        "1 of 2 components are not reachable from the primary (liba)"})
    EXPECT_TRUE(says(fs, part)) << part << "\n" << testing::dump(fs);
  // The files named are absent from the wheel: WC904 warns, once, counting them.
  EXPECT_TRUE(says(fs, "names what the archive does not contain (50): demo/f0.py")) << testing::dump(fs);
}

TEST(Sbom, AbsentPypiComponentsAndExcludedOnes) {
  WheelBuilder w("demo", "1.0");
  w.add("demo/__init__.py", "");
  w.add("demo/_vendor/six.py", "");
  json doc = auditwheel_doc(
      {{{"type", "library"},
        {"bom-ref", "r"},
        {"name", "requests"},
        {"version", "2.32.3"},
        // An embedded distribution's file_name= is its own file's, not this wheel's (no WC904 for it).
        {"purl", "pkg:pypi/requests@2.32.3?file_name=requests-2.32.3-py3-none-any.whl"}},
       {{"type", "library"}, {"bom-ref", "s"}, {"name", "six"}, {"version", "1.16.0"}, {"purl", "pkg:pypi/six@1.16.0"}},
       {{"type", "library"},
        {"bom-ref", "t"},
        {"name", "tomli"},
        {"version", "2"},
        {"purl", "pkg:pypi/tomli@2"},
        {"scope", "excluded"}}},
      "demo-1.0-py3-none-any.whl");
  w.add(w.dist_info() + "/sboms/x.cdx.json", doc.dump());
  auto fs = sbom_findings(testing::findings_of(w.build(), "demo-1.0-py3-none-any.whl"));
  ASSERT_EQ(fs.size(), 1u) << testing::dump(fs);
  EXPECT_EQ(fs[0].severity, Severity::warning);
  EXPECT_TRUE(says(fs,
                   "names what the archive does not contain (1): "
                   "pkg:pypi/requests@2.32.3?file_name=requests-2.32.3-py3-none-any.whl "
                   "(no such package in the archive)"))
      << testing::dump(fs);
}

TEST(Sbom, BuildPathsButNotEveryBuildDirectory) {
  WheelBuilder w("demo", "1.0");
  w.add("demo/__init__.py", "");
  json doc = auditwheel_doc({}, "demo-1.0-py3-none-any.whl");
  doc["metadata"]["component"]["description"] = "built in /home/runner/work/demo/demo";
  doc["metadata"]["properties"] = {{{"name", "src"}, {"value", "/__w/demo/demo/src"}},
                                   {{"name", "rel"}, {"value", "subdir/build/lib"}},
                                   {{"name", "sys"}, {"value", "/usr/src/build/x"}}};
  w.add(w.dist_info() + "/sboms/x.cdx.json", doc.dump());
  auto fs = sbom_findings(testing::findings_of(w.build(), "demo-1.0-py3-none-any.whl"));
  ASSERT_EQ(fs.size(), 1u) << testing::dump(fs);
  EXPECT_EQ(fs[0].rule, "WC905");
  EXPECT_TRUE(says(fs, "absolute build paths (1): /metadata/properties/0/value: /__w/demo/demo/src"))
      << testing::dump(fs);
  EXPECT_TRUE(is_build_machine_path("/home/runner/work/x"));
  EXPECT_TRUE(is_build_machine_path("file:///tmp/pip-build-env-1/x"));
  EXPECT_TRUE(is_build_machine_path("D:\\a\\proj\\proj\\build"));
  EXPECT_FALSE(is_build_machine_path("/usr/src/build/x"));
  EXPECT_FALSE(is_build_machine_path("https://example.org/home/x"));
  EXPECT_FALSE(is_build_machine_path("/tmp/"));
  // Every URL and path form tools write (issue 50).
  for (const char* p :
       {"file://localhost/home/runner/x", "path+file:///home/u/src/x", "git+file:///Users/me/proj",
        "file:///C:/Users/runneradmin/x", "FILE:///tmp/build/x", "\\\\buildsrv\\share\\x", "//buildsrv/share/x",
        "e:\\a\\proj\\x", "C:/agent/_work/1/s/x", "c:\\BuildAgent\\work\\abc", "C:\\projects\\demo\\x"})
    EXPECT_TRUE(is_build_machine_path(p)) << p;
  for (const char* p : {"C:\\Program Files\\x", "file:///usr/lib/x", "//", "C:/", "pkg:generic/x@1"})
    EXPECT_FALSE(is_build_machine_path(p)) << p;
}

TEST(Sbom, HostileDocumentsAreFindings) {
  auto check = [](const std::string& text, const std::string& expect) {
    WheelBuilder w("demo", "1.0");
    w.add("demo/__init__.py", "");
    w.add(w.dist_info() + "/sboms/x.cdx.json", text);
    auto fs = testing::findings_of(w.build(), "demo-1.0-py3-none-any.whl");
    EXPECT_TRUE(has_rule(fs, "WC901")) << expect << testing::dump(fs);
    EXPECT_TRUE(says(fs, expect)) << testing::dump(fs);
  };
  // 50 MB: over the size limit, not read (and no other dist-info finding for it).
  std::string big = R"({"bomFormat": "CycloneDX", "specVersion": "1.6", "components": [)";
  while (big.size() < (50u << 20)) big += R"({"type": "library", "name": "x", "version": "1"},)";
  big += R"({"type": "library", "name": "x"}]})";
  check(big, "over the size limit of 16.8 MB (limits.max_metadata_bytes)");
  check(std::string(100000, '[') + std::string(100000, ']'), "nested deeper than 64 levels");
  check(R"({"bomFormat": "CycloneDX", "specVersion": "1.6", "components": [)", "not valid JSON");
  std::string many = R"({"bomFormat": "CycloneDX", "specVersion": "1.6", "components": [)";
  for (int i = 0; i < 200001; ++i) many += R"({"type":"file","name":"f"},)";
  many += R"({"type":"file","name":"f"}]})";
  check(many, "more than 200000 components and files");
}

TEST(Sbom, OneGraftedLibraryOneIdentityAcrossTheRun) {
  testing::TempDir dir;
  for (const char* py : {"cp312", "cp313"}) {
    std::string tag = std::string(py) + "-" + py + "-manylinux_2_28_x86_64";
    WheelBuilder w("demo", "1.0", tag);
    w.purelib(false);
    w.add("demo/__init__.py", "");
    w.add("demo.libs/libssl-0a1b2c3d.so.3", elf());
    std::string version = std::string(py) == "cp312" ? "3.0.7-27.el9" : "3.2.2-6.el9";
    w.add(w.dist_info() + "/sboms/auditwheel.cdx.json",
          auditwheel_doc({rpm_lib("openssl-libs", version, "/usr/lib64/libssl.so.3")}, w.filename()).dump());
    w.write(dir.path());
  }
  auto r = run_wheelcheck({"check", "--format", "json", dir.path()});
  auto j = json::parse(r.out);
  ASSERT_TRUE(j.contains("set")) << r.out;
  std::string set = j["set"].dump();
  EXPECT_NE(set.find("WC906"), std::string::npos) << set;
  EXPECT_NE(set.find("libssl.so.3 (graft hash 0a1b2c3d): one set of bytes declared as "
                     "pkg:rpm/almalinux/openssl-libs@3.0.7-27.el9 in demo-1.0-cp312"),
            std::string::npos)
      << set;
  // Merged shards judge it the same way: the members carry what their SBOMs declare.
  ASSERT_EQ(j["wheels"][0]["release"]["sbom_libraries"]["0a1b2c3d"]["library"], "libssl.so.3");
}

// A package's checksum is its own archive's: the files it CONTAINS (SPDX 2 and 3) or nests
// (CycloneDX) are declared by it but compared only with their own hashes.
TEST(Sbom, ContainedFilesKeepTheirOwnHashes) {
  const std::string lib = elf();
  const std::string tarball = sha256_hex("zlib-1.3.1.tar.gz");
  json spdx = spdx23_demo(
      {{"SPDXID", "SPDXRef-zlib"},
       {"name", "zlib"},
       {"versionInfo", "1.3.1"},
       {"downloadLocation", "https://zlib.net/zlib-1.3.1.tar.gz"},
       {"checksums", {{{"algorithm", "SHA256"}, {"checksumValue", tarball}}}}},
      "demo.libs/libz-8c9d0e1f.so.1.3.1", sha256_hex(lib),
      {{"spdxElementId", "SPDXRef-zlib"}, {"relationshipType", "CONTAINS"}, {"relatedSpdxElement", "SPDXRef-libz"}},
      // Another document's element, from the document itself: neither is dangling.
      {{{"spdxElementId", "SPDXRef-DOCUMENT"},
        {"relationshipType", "DEPENDS_ON"},
        {"relatedSpdxElement", "DocumentRef-upstream:SPDXRef-zlib-src"}}});
  json cdx = auditwheel_doc({{{"type", "library"},
                              {"bom-ref", "zlib"},
                              {"name", "zlib"},
                              {"version", "1.3.1"},
                              {"purl", "pkg:generic/zlib@1.3.1"},
                              {"hashes", {{{"alg", "SHA-256"}, {"content", tarball}}}},
                              {"components",
                               {{{"type", "file"},
                                 {"name", "demo.libs/libz-8c9d0e1f.so.1.3.1"},
                                 {"hashes", {{{"alg", "SHA-256"}, {"content", sha256_hex(lib)}}}}}}}}});
  cdx["services"] = {{{"bom-ref", "svc-telemetry"}, {"name", "telemetry"}}};
  cdx["dependencies"].push_back({{"ref", "zlib"}, {"dependsOn", {"svc-telemetry"}}});
  for (const auto& [name, doc] : {std::pair{"x.spdx.json", spdx}, std::pair{"x.cdx.json", cdx}}) {
    SCOPED_TRACE(name);
    WheelBuilder w("demo", "1.0", kTag);
    w.purelib(false);
    w.add("demo/__init__.py", "");
    w.add("demo.libs/libz-8c9d0e1f.so.1.3.1", lib);
    w.add(w.dist_info() + "/sboms/" + name, doc.dump());
    auto f = testing::facts_of(w.build(), kFile);
    ASSERT_EQ(f.sboms.size(), 1u);
    EXPECT_TRUE(f.sboms[0].errors.empty()) << json(f.sboms[0].errors).dump();
    EXPECT_TRUE(f.sboms[0].warnings.empty()) << json(f.sboms[0].warnings).dump();
    SbomCoverage c = sbom_coverage(f);
    ASSERT_EQ(c.declared(), 1u);
    EXPECT_EQ(c.declared_by[0]->how, "contained file");
    auto fs = testing::findings_of(w.build(), kFile);
    EXPECT_FALSE(has_rule(fs, "WC904")) << testing::dump(fs);
    EXPECT_FALSE(has_rule(fs, "WC903")) << testing::dump(fs);
  }
}

// OpenSSL 1.1.1's grafts end in a release letter (libcrypto.so.1.1.1k): bundled, and their version
// strings read.
TEST(Sbom, LetteredOpenSslGrafts) {
  WheelBuilder w("demo", "1.0", kTag);
  w.purelib(false);
  w.add("demo/__init__.py", "");
  w.add("demo.libs/libcrypto-4e5f6a7b.so.1.1.1k", elf() + std::string(5000, '\0') + "OpenSSL 1.1.1k  FIPS 25 Mar 2021");
  auto f = testing::facts_of(w.build(), kFile);
  auto bundled = bundled_libraries(f);
  ASSERT_EQ(bundled.size(), 1u);
  EXPECT_EQ(bundled[0].original, "libcrypto.so.1.1.1k");
  EXPECT_EQ(f.find_entry("demo.libs/libcrypto-4e5f6a7b.so.1.1.1k")->version_strings,
            std::vector<std::string>{"1.1.1k"});
  w.add(w.dist_info() + "/sboms/auditwheel.cdx.json",
        auditwheel_doc({rpm_lib("openssl-libs", "1:3.0.7-27.el9", "/usr/lib64/libcrypto.so.1.1.1k")}).dump());
  auto fs = sbom_findings(testing::findings_of(w.build(), kFile));
  EXPECT_TRUE(says(fs, "declares demo.libs/libcrypto-4e5f6a7b.so.1.1.1k, which says it is OpenSSL 1.1.1k"))
      << testing::dump(fs);
  EXPECT_TRUE(is_lettered_shared_library_name("a/libssl.so.1.1.1w"));
  EXPECT_FALSE(is_lettered_shared_library_name("libssl.so.1.1.1"));
  EXPECT_FALSE(is_lettered_shared_library_name("libssl.so.k"));
  EXPECT_FALSE(is_lettered_shared_library_name("libssl.so.1.x1k"));
  EXPECT_TRUE(is_lettered_shared_library_name("a.so.1a"));  // the shortest
  EXPECT_TRUE(is_lettered_shared_library_name("x/libz.so.10b"));
  EXPECT_FALSE(is_lettered_shared_library_name("a.so.a"));
  EXPECT_FALSE(is_lettered_shared_library_name("pkg/mod.py"));
}

// Windows: delvewheel's hashed names and OpenSSL's ABI-and-architecture names are the libraries a
// component declares by name (libcrypto-3-x64.dll is OpenSSL's libcrypto); a file named .json
// holding XML or YAML is a WC901 finding, not silence.
TEST(Sbom, WindowsDllNamesAndJsonNamesThatLie) {
  WheelBuilder w("demo", "1.0", "cp312-cp312-win_amd64");
  w.purelib(false);
  w.add("demo/__init__.py", "");
  w.add("demo.libs/libcrypto-3-x64-4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b.dll", "MZ");
  w.add("demo.libs/libssl-1_1-x64.dll", "MZ");
  w.add("demo.libs/libcrypto-3-arm64.dll", "MZ");
  auto f = testing::facts_of(w.build(), w.filename());
  auto bundled = bundled_libraries(f);
  ASSERT_EQ(bundled.size(), 3u);
  for (const auto& b : bundled) EXPECT_EQ(b.upstream, "OpenSSL") << b.entry << " -> " << b.stem;
  json doc = {
      {"bomFormat", "CycloneDX"},
      {"specVersion", "1.6"},
      {"metadata",
       {{"component", {{"type", "library"}, {"name", "demo"}, {"bom-ref", "root"}, {"purl", "pkg:pypi/demo@1.0"}}}}},
      {"components", {{{"type", "library"}, {"name", "openssl"}, {"version", "3.0.13"}, {"bom-ref", "o"}}}}};
  w.add(w.dist_info() + "/sboms/demo.cdx.json", doc.dump());
  auto covered = sbom_coverage(testing::facts_of(w.build(), w.filename()));
  EXPECT_EQ(covered.declared(), 3u);
  for (const auto& [name, text, says_what] :
       {std::tuple<std::string, std::string, std::string>{
            "bom.cdx.json", "<?xml version=\"1.0\"?><bom xmlns=\"http://cyclonedx.org/schema/bom/1.6\"/>",
            "(CycloneDX XML)"},
        {"bom.spdx.json", "bomFormat: CycloneDX\nspecVersion: '1.6'\n", "(CycloneDX YAML)"},
        {"x.JSON", "hello", "(it starts with 'hello')"}}) {
    WheelBuilder v("demo", "1.0");
    v.add("demo/__init__.py", "");
    v.add(v.dist_info() + "/sboms/" + name, text);
    auto fs = sbom_findings(testing::findings_of(v.build(), v.filename()));
    EXPECT_TRUE(says(fs, "WC901 [error] demo-1.0.dist-info/sboms/" + name +
                             ": named .json, but the content is not JSON " + says_what))
        << testing::dump(fs);
  }
}

// Hash differences: the first few are findings, the rest one count (a hostile document cannot
// make a finding per file).
TEST(Sbom, HashDifferencesAreCapped) {
  WheelBuilder w("demo", "1.0", kTag);
  w.purelib(false);
  w.add("demo/__init__.py", "");
  json files = json::array();
  for (int i = 0; i < 30; ++i) {
    std::string path = "demo/data" + std::to_string(i) + ".bin";
    w.add(path, "bytes " + std::to_string(i));
    files.push_back({{"type", "file"},
                     {"bom-ref", path},
                     {"name", path},
                     {"hashes", {{{"alg", "SHA-256"}, {"content", sha256_hex("other")}}}}});
  }
  json doc = auditwheel_doc({});
  for (auto& x : files) doc["components"].push_back(x);
  w.add(w.dist_info() + "/sboms/x.cdx.json", doc.dump());
  auto fs = testing::findings_of(w.build(), kFile);
  size_t wc904 = 0;
  for (const auto& f : fs) wc904 += f.rule == "WC904";
  EXPECT_EQ(wc904, 11u) << testing::dump(fs);
  EXPECT_TRUE(says(fs, "20 more hashes differ from the files they name")) << testing::dump(fs);
}

// The SBOM texts a wheel holds at once are bounded together (4 x limits.max_metadata_bytes), in
// archive order; the ones past it are WC901 errors, never read.
TEST(Sbom, SbomsTogetherAreBounded) {
  testing::TempDir dir;
  WheelBuilder w("demo", "1.0");
  w.add("demo/__init__.py", "");
  json doc = auditwheel_doc({}, "demo-1.0-py3-none-any.whl");
  std::string text = doc.dump(1);
  text += std::string(3000 - text.size(), ' ');
  for (int i = 0; i < 6; ++i) w.add(w.dist_info() + "/sboms/d" + std::to_string(i) + ".cdx.json", text);
  std::string path = w.write(dir.path());
  std::ofstream(dir.file("p.json")) << R"({"extends": "default", "limits": {"max_metadata_bytes": 10000}})";
  auto r = run_wheelcheck({"check", "--policy", dir.file("p.json"), "--format", "json", path});
  auto j = json::parse(r.out);
  std::vector<std::string> over;
  for (const auto& f : j["wheels"][0]["findings"])
    if (f["rule"] == "WC901" && f["message"].get<std::string>().find("would pass 40 kB together") != std::string::npos)
      over.push_back(f["entry"]);
  // 10,000 bytes a file, 40,000 in all: the six of 3,000 bytes fit.
  EXPECT_TRUE(over.empty()) << r.out;
  std::ofstream(dir.file("q.json")) << R"({"extends": "default", "limits": {"max_metadata_bytes": 3500}})";
  auto q = run_wheelcheck({"check", "--policy", dir.file("q.json"), "--format", "json", path});
  auto k = json::parse(q.out);
  over.clear();
  for (const auto& f : k["wheels"][0]["findings"])
    if (f["rule"] == "WC901" && f["message"].get<std::string>().find("would pass 14 kB together") != std::string::npos)
      for (const auto& l : f.value("locations", json::array({f}))) over.push_back(l["entry"]);  // folded or not
  // 14,000 bytes hold four documents of 3,000; d4 and d5 are not read.
  EXPECT_EQ(over,
            (std::vector<std::string>{w.dist_info() + "/sboms/d4.cdx.json", w.dist_info() + "/sboms/d5.cdx.json"}))
      << q.out;
  EXPECT_EQ(k["wheels"][0]["sbom"]["documents"], 4) << q.out;
}

TEST(Sbom, Purls) {
  Purl p;
  ASSERT_TRUE(
      parse_purl("pkg:pypi/"
                 "psycopg2-binary@2.9.10?file_name=psycopg2_binary-2.9.10-cp312-cp312-manylinux_2_17_x86_64."
                 "manylinux2014_x86_64.whl#x",
                 p));
  EXPECT_EQ(p.type, "pypi");
  EXPECT_EQ(p.name, "psycopg2-binary");
  EXPECT_EQ(p.version, "2.9.10");
  EXPECT_EQ(p.qualifier("file_name"),
            "psycopg2_binary-2.9.10-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  ASSERT_TRUE(parse_purl("pkg:rpm/almalinux/openssl-libs@1%3A3.0.7-27.el9?arch=x86_64", p));
  EXPECT_EQ(p.name_space, "almalinux");
  EXPECT_EQ(p.version, "1:3.0.7-27.el9");
  EXPECT_FALSE(parse_purl("openssl", p));
  EXPECT_EQ(bom_ref_path_hash("pkg:rpm/x/y@1#" + std::string(64, 'A')), std::string(64, 'a'));
  EXPECT_EQ(bom_ref_path_hash("pkg:rpm/x/y@1#abc"), "");
}

}  // namespace
}  // namespace wc
