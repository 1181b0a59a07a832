// The fuzz targets outside libFuzzer: the checked-in regression corpus (fuzz/corpus/TARGET/*, every
// crash ever found plus a few hand-made hostile files) is replayed through the same entry points in
// every build; and the seed corpora for `make fuzz` are written from the tests' own builders.
#include <gtest/gtest.h>

#include <filesystem>

#include "facts/analyze.h"
#include "fuzz_targets.h"
#include "io/source.h"
#include "policy/policy.h"
#include "rules/release/release_set.h"
#include "support/fixtures.h"
#include "support/installer_cases.h"
#include "support/raw_zip.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

namespace fs = std::filesystem;
using testing::WheelBuilder;

TEST(FuzzCorpus, RegressionCorpusReplays) {
  fs::path root = fs::path(WC_SOURCE_DIR) / "fuzz" / "corpus";
  size_t files = 0;
  for (const auto& t : fuzz::all_targets()) {
    fs::path dir = root / t.name;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      auto bytes = testing::read_file(e.path().string());
      SCOPED_TRACE(e.path().string());
      EXPECT_NO_THROW(t.fn(bytes.data(), bytes.size()));
      ++files;
    }
  }
  EXPECT_GT(files, 0u) << "no regression corpus under " << root;
}

// Seeds: valid inputs of every format (mutation starts from structure, not noise). Written when
// WHEELCHECK_FUZZ_SEEDS names a directory (`make fuzz` sets it); otherwise they are still built and
// pushed through the targets once, so the seeds themselves never crash a target.
TEST(FuzzCorpus, Seeds) {
  std::map<std::string, std::vector<std::vector<uint8_t>>> seeds;
  auto text = [](const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); };
  auto wheel = WheelBuilder("demo", "1.0+cu128", "cp312-cp312-manylinux_2_17_x86_64")
                   .purelib(false)
                   .add("demo/__init__.py", "x = 1\n")
                   .requires_dist("nvidia-cudnn-cu12==9.1; platform_system == 'Linux'");
  auto elf = testing::tiny_elf(true, false, 62);
  seeds["zip"] = {wheel.build(), WheelBuilder("pure", "2.0").add("pure/a.py", std::string(5000, 'a')).build(),
                  WheelBuilder("bin", "1.0", "cp312-cp312-manylinux_2_17_x86_64")
                      .purelib(false)
                      .add("bin/_x.cpython-312-x86_64-linux-gnu.so", std::string(elf.begin(), elf.end()))
                      .build()};
  seeds["filename"] = {text("torch-2.15.0+cu132-cp312-cp312-manylinux_2_28_x86_64.whl"),
                       text("numpy-2.1.3-1build-cp313-cp313t-macosx_14_0_arm64.whl"),
                       text("spam-0.1.0-cp313-cp313-android_24_arm64_v8a.whl"),
                       text("x-1.0-py2.py3-none-ios_17_0_arm64_iphoneos.musllinux_1_2_x86_64.whl")};
  seeds["metadata"] = {
      text("Metadata-Version: 2.4\nName: demo\nVersion: 1.0\nRequires-Python: >=3.9,!=3.10.*\n"
           "Requires-Dist: nvidia-cublas==13.0.1; platform_system == 'Linux'\nSummary: x\n\nbody\n")};
  seeds["wheel"] = {
      text("Wheel-Version: 1.0\nGenerator: bdist_wheel\nRoot-Is-Purelib: false\nTag: "
           "cp312-cp312-manylinux_2_17_x86_64\nBuild: 1\n")};
  seeds["record"] = {
      text("demo/__init__.py,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,6\n\"a,b\",,\ndemo-1.0.dist-info/"
           "RECORD,,\n")};
  seeds["version"] = {text("1!2.0.post3.dev4+cu128.local"), text(">=3.9,!=3.10.*,<4"), text("~=2.2")};
  seeds["elf"] = {elf, testing::tiny_elf(false, true, 20)};
  seeds["macho"] = {testing::macho_thin(0x0100000c, 0x000B0000, {"/usr/lib/libSystem.B.dylib", "@rpath/libx.dylib"},
                                        "@loader_path/../lib"),
                    testing::macho_fat({{0x01000007, testing::macho_thin(0x01000007, 0x000A0D00, {}, "")},
                                        {0x0100000c, testing::macho_thin(0x0100000c, 0x000B0000, {}, "")}})};
  seeds["pe"] = {testing::pe_image(0x8664, {"KERNEL32.dll", "python312.dll"})};
  auto fat = testing::synth_container({{2, 90}, {1, 90, 0x11, 8, 5}, {2, 100, 0x100011}});
  fat.insert(fat.begin(), 7);  // the fatbin target's first byte picks the chunk size
  seeds["fatbin"] = {fat};
  // The shapes that fooled the reader once (issue 16): a ZIP64 locator pointing at a record hidden in
  // an entry, data descriptors honest and lying, overlapping entries sharing one kernel.
  for (const auto& shape : {testing::hidden_zip64_wheel(), testing::descriptor_wheel(false),
                            testing::descriptor_wheel(true), testing::overlapping_bomb(8, 1u << 16)})
    seeds["zip"].push_back(testing::bytes_of(shape));
  seeds["inflate"] = seeds["zip"];
  // Issue 28's crafted archives (refused ones and controls), named as their wheels.
  for (const auto& c : testing::installer_cases())
    seeds["installer"].push_back(fuzz::installer_input(c.filename, c.bytes));
  for (const auto* kind : {"elf", "macho", "pe", "fatbin"})
    for (auto s : seeds[kind]) {
      s.insert(s.begin(), 3);  // the capture target's first byte picks the chunk size
      seeds["capture"].push_back(std::move(s));
    }
  seeds["policy"] = {text(*shipped_policy_text("pytorch")), text(*shipped_policy_text("strict"))};
  seeds["index"] = {
      text("<html><a href=\"../../f/demo-1.0-py3-none-any.whl#sha256=ab\" "
           "data-core-metadata=\"sha256=cd\">demo-1.0-py3-none-any.whl</a></html>"),
      text("{\"meta\": {\"api-version\": \"1.1\"}, \"files\": [{\"filename\": \"demo-1.0-py3-none-any.whl\", "
           "\"url\": \"demo-1.0-py3-none-any.whl\", \"hashes\": {\"sha256\": \"ab\"}, \"core-metadata\": true}]}")};
  seeds["cases"] = {
      text(R"J({"suite": "pad_concat", "cases": [{"name": "p", "shape": [2, 3, 5], "dtype": "bfloat16",
               "pad": [0, 3], "value": "nan", "expect_shape": [2, 3, 8], "checksum": 7,
               "expect_fill_bits": "0x7fc0"}, {"shape": [4], "dtype": "int32", "pad": [-5, 0], "expect": "error"}]})J"),
      text(R"J({"suite": "dtensor_view", "cases": [{"name": "d", "shape": [8, 4], "mesh": [2, 2],
               "placements": ["S(1)", "SS(0,2)"], "op": "unflatten", "args": [0, [2, 4]], "expect": ["R", "P"],
               "expect_gathers": 1}]})J"),
      text(R"J({"suite": "rng_graph", "cases": [{"seed": "0xffffffffffffffff", "subsequence": 3, "offset": 6,
               "expect": ["6627e8d5"]}]})J")};
  // Issue 49's parsers. The SBOM seeds are the three formats as tools write them (auditwheel's
  // CycloneDX with evidence, an SPDX 2.3 package with files and relationships, SPDX 3 JSON-LD).
  seeds["sbom"] = {
      text(R"J({"bomFormat": "CycloneDX", "specVersion": "1.6", "serialNumber": "urn:uuid:1",
               "metadata": {"tools": [{"name": "auditwheel", "version": "6.5.0"}],
                            "component": {"type": "library", "bom-ref": "pkg:pypi/fuzz@1.0", "name": "fuzz",
                                          "version": "1.0", "purl": "pkg:pypi/fuzz@1.0"}},
               "components": [{"type": "library", "bom-ref": "pkg:rpm/almalinux/zlib@1.2.11#8e7a", "name": "zlib",
                               "version": "1.2.11", "purl": "pkg:rpm/almalinux/zlib@1.2.11",
                               "hashes": [{"alg": "SHA-256", "content": "00"}],
                               "evidence": {"occurrences": [{"location": "fuzz.libs/libz-8e7a.so.1.2.11"}]}}],
               "dependencies": [{"ref": "pkg:pypi/fuzz@1.0", "dependsOn": ["pkg:rpm/almalinux/zlib@1.2.11#8e7a"]}]})J"),
      text(R"J({"spdxVersion": "SPDX-2.3", "SPDXID": "SPDXRef-DOCUMENT", "name": "fuzz", "dataLicense": "CC0-1.0",
               "documentNamespace": "https://example.org/fuzz", "creationInfo": {"created": "2026-01-01T00:00:00Z",
               "creators": ["Tool: maturin-1.9"]}, "documentDescribes": ["SPDXRef-p"],
               "packages": [{"SPDXID": "SPDXRef-p", "name": "fuzz", "versionInfo": "1.0", "downloadLocation": "NONE",
                             "hasFiles": ["SPDXRef-f"]}],
               "files": [{"SPDXID": "SPDXRef-f", "fileName": "./fuzz/_x.so",
                          "checksums": [{"algorithm": "SHA256", "checksumValue": "00"}]}],
               "relationships": [{"spdxElementId": "SPDXRef-p", "relationshipType": "CONTAINS",
                                  "relatedSpdxElement": "SPDXRef-f"}]})J"),
      text(R"J({"@context": "https://spdx.org/rdf/3.0.1/spdx-context.jsonld", "@graph": [
               {"type": "CreationInfo", "@id": "_:c", "created": "2026-01-01T00:00:00Z", "specVersion": "3.0.1"},
               {"type": "SpdxDocument", "spdxId": "urn:d", "creationInfo": "_:c", "rootElement": ["urn:p"]},
               {"type": "software_Package", "spdxId": "urn:p", "name": "fuzz", "software_packageVersion": "1.0",
                "creationInfo": "_:c"},
               {"type": "Relationship", "spdxId": "urn:r", "from": "urn:p", "relationshipType": "contains",
                "to": ["urn:p"], "creationInfo": "_:c"}]})J")};
  for (size_t k = 0; k < seeds["sbom"].size(); ++k)  // the target's first byte picks the file name
    seeds["sbom"][k].insert(seeds["sbom"][k].begin(), static_cast<uint8_t>(k));
  seeds["attestation"] = {
      text(R"J({"version": 1, "attestation_bundles": [{"publisher": {"kind": "GitHub", "repository": "o/r",
               "workflow": "release.yml", "environment": "pypi"}, "attestations": [{"version": 1,
               "verification_material": {"certificate": "MIIB", "transparency_entries": [{"logIndex": "1",
               "logId": {"keyId": "AA=="}, "kindVersion": {"kind": "dsse", "version": "0.0.1"},
               "integratedTime": "1700000000", "inclusionPromise": {"signedEntryTimestamp": "AA=="},
               "inclusionProof": {"logIndex": "1", "rootHash": "AA==", "treeSize": "2", "hashes": ["AA=="],
               "checkpoint": {"envelope": "rekor.sigstore.dev - 1
2
AA==
"}}, "canonicalizedBody": "e30="}]},
               "envelope": {"statement": "e30=", "signature": "AA=="}}]}]})J")};
  seeds["trust_root"] = {text(R"J({"mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
               "tlogs": [{"baseUrl": "https://rekor.sigstore.dev", "hashAlgorithm": "SHA2_256",
                          "publicKey": {"rawBytes": "AA==", "keyDetails": "PKIX_ECDSA_P256_SHA_256",
                                        "validFor": {"start": "2021-01-12T11:53:27.000Z"}},
                          "logId": {"keyId": "AA=="}}],
               "certificateAuthorities": [{"subject": {"organization": "sigstore.dev", "commonName": "sigstore"},
                          "uri": "https://fulcio.sigstore.dev", "certChain": {"certificates": [{"rawBytes": "AA=="}]},
                          "validFor": {"start": "2022-04-13T20:06:15.000Z", "end": "2031-02-30T00:00:00Z"}}],
               "ctlogs": []})J")};
  // Release members as check writes them, of two nights of one binary wheel (the second raises its
  // floor), and a shard report holding them.
  nlohmann::json members = nlohmann::json::array();
  for (const char* version : {"1.0", "1.1"}) {
    auto bytes = WheelBuilder("bin", version, "cp312-cp312-manylinux_2_17_x86_64")
                     .purelib(false)
                     .add("bin/_x.cpython-312-x86_64-linux-gnu.so", std::string(elf.begin(), elf.end()))
                     .build();
    MemorySource src(std::string("bin-") + version + "-cp312-cp312-manylinux_2_17_x86_64.whl", bytes);
    static const Policy pol = load_policy("default");
    members.push_back(member_to_json(summarize(analyze_wheel(src, analyze_options_for(pol)), pol)));
  }
  seeds["release_set"] = {text(members.dump())};
  nlohmann::json report = {{"schema", "wheelcheck-report/1"},
                           {"tool", "wheelcheck"},
                           {"policy", "default"},
                           {"depth", "full"},
                           {"shard", {{"index", 1}, {"count", 1}, {"targets", 2}, {"digest", "ab"}}}};
  for (size_t k = 0; k < members.size(); ++k)
    report["wheels"].push_back({{"path", "bin-1." + std::to_string(k) + "-cp312-cp312-manylinux_2_17_x86_64.whl"},
                                {"verdict", "fail"},
                                {"size", 10},
                                {"findings",
                                 {{{"rule", "WC301"},
                                   {"severity", "error"},
                                   {"message", "m"},
                                   {"entry", "e"},
                                   {"offset", 3},
                                   {"locations", {{{"entry", "e"}}, {{"entry", "f"}, {"offset", 4}}}}}}},
                                {"release", members[k]}});
  seeds["shard"] = {text(report.dump())};
  // sdists as tarfile writes them (gzip and plain tar), and a legacy zip.
  {
    testing::TempDir d;
    testing::write_sdist(d.file("a.tar.gz"), "fuzz-1.0",
                         "Metadata-Version: 2.4\nName: fuzz\nVersion: 1.0\nDynamic: Requires-Dist\n\n");
    seeds["sdist"].push_back(testing::read_file(d.file("a.tar.gz")));
    auto r = testing::run_command("gzip -dc " + testing::shell_quote(d.file("a.tar.gz")) + " > " +
                                  testing::shell_quote(d.file("a.tar")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    seeds["sdist"].push_back(testing::read_file(d.file("a.tar")));
    seeds["sdist"].push_back(WheelBuilder("fuzz", "1.0").add("fuzz-1.0/PKG-INFO", "Name: fuzz\n").build());
  }
  const char* out = std::getenv("WHEELCHECK_FUZZ_SEEDS");
  for (const auto& t : fuzz::all_targets()) {
    ASSERT_TRUE(seeds.count(t.name)) << "no seeds for fuzz target " << t.name;
    size_t k = 0;
    for (const auto& s : seeds[t.name]) {
      t.fn(s.data(), s.size());
      if (!out) continue;
      fs::create_directories(fs::path(out) / t.name);
      testing::write_file((fs::path(out) / t.name / ("seed" + std::to_string(k++))).string(), s);
    }
  }
}

}  // namespace
}  // namespace wc
