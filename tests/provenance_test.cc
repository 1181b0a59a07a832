// PEP 740 attestations verified offline (issue 34): real production and staging attestations from
// pypi-attestations' own test assets against the trust roots sigstore-python ships (both sdists
// downloaded by name and sha256 into the cache), one altered byte per step failing at that step,
// and the Merkle inclusion proof against a reference tree of every size up to 33.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "pipeline/check.h"
#include "provenance/sigstore.h"
#include "support/rfc6962.h"
#include "support/test_support.h"
#include "util/digest.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using json = nlohmann::json;

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string sha256_hex(const std::string& bytes) {
  Digest d("sha256");
  d.update(bytes.data(), bytes.size());
  return d.digest_hex();
}

const testing::SigstoreAssets& assets() { return testing::sigstore_assets(); }

#define NEED_ASSETS()                                                \
  do {                                                               \
    if (assets().skip.starts_with("FAIL ")) FAIL() << assets().skip; \
    if (!assets().skip.empty()) GTEST_SKIP() << assets().skip;       \
  } while (0)

const TrustedRoot& production() {
  static const TrustedRoot r =
      TrustedRoot::parse(read_file(assets().roots + "/https%3A%2F%2Ftuf-repo-cdn.sigstore.dev/trusted_root.json"));
  return r;
}
const TrustedRoot& staging() {
  static const TrustedRoot r =
      TrustedRoot::parse(read_file(assets().roots + "/https%3A%2F%2Ftuf-repo-cdn.sigstage.dev/trusted_root.json"));
  return r;
}

// The attestations of a file beside it: one attestation object, or a provenance object's bundles.
std::vector<json> attestations_in(const std::string& path) {
  json d = json::parse(read_file(path));
  if (!d.contains("attestation_bundles")) return {d};
  std::vector<json> out;
  for (const auto& b : d["attestation_bundles"])
    for (const auto& a : b["attestations"]) out.push_back(a);
  return out;
}

AttestationResult verify(const json& att, const std::string& dist, const TrustedRoot& root) {
  std::string bytes = read_file(assets().dir + "/" + dist);
  return verify_attestation(att, root, dist, sha256_hex(bytes));
}

TEST(Provenance, RealAttestationsVerify) {
  NEED_ASSETS();
  EXPECT_GE(production().certificate_authorities(), 2u);
  EXPECT_GE(production().transparency_logs(), 1u);
  EXPECT_GE(production().ct_logs(), 1u);
  struct Case {
    std::string dist, attestation;
    const TrustedRoot* root;
    std::string kind, repository, workflow, predicate;
  };
  const std::string publish = kPublishPredicate, slsa = kSlsaPredicate;
  std::vector<Case> cases = {
      {"circleci_sign_publish_example-0.0.1.dev137-py3-none-any.whl", ".publish.attestation", &production(), "CircleCI",
       "github.com/CircleCI-Public/sign-and-publish-examples", "", publish},
      {"circleci_sign_publish_example-0.0.1.dev137-py3-none-any.whl", ".provenance", &production(), "CircleCI",
       "github.com/CircleCI-Public/sign-and-publish-examples", "", publish},
      {"pypi_attestations-0.0.19.tar.gz", ".publish.attestation", &production(), "GitHub",
       "trailofbits/pypi-attestations", "release.yml", publish},
      {"pypi_attestations-0.0.19.tar.gz", ".slsa.attestation", &production(), "GitHub", "trailofbits/pypi-attestations",
       "release.yml", slsa},
      {"pypi_attestations-0.0.19.tar.gz", ".provenance", &production(), "GitHub", "trailofbits/pypi-attestations",
       "release.yml", publish},
      {"gitlab_oidc_project-0.0.3.tar.gz", ".publish.attestation", &production(), "GitLab",
       "facutuesca/gitlab-oidc-project", ".gitlab-ci.yml", publish},
      {"gcb_attestation_test-0.0.0.tar.gz", ".provenance", &production(), "Google", "", "", publish},
      {"rfc8785-0.1.2-py3-none-any.whl", ".publish.attestation", &staging(), "", "", "", publish},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.dist + c.attestation);
    auto atts = attestations_in(assets().dir + "/" + c.dist + c.attestation);
    ASSERT_FALSE(atts.empty());
    for (const auto& a : atts) {
      auto r = verify(a, c.dist, *c.root);
      EXPECT_TRUE(r.verified) << r.step << ": " << r.error;
      EXPECT_EQ(r.publisher.kind, c.kind);
      EXPECT_EQ(r.publisher.repository, c.repository);
      EXPECT_EQ(r.publisher.workflow, c.workflow);
      EXPECT_EQ(r.predicate_type, c.predicate);
      EXPECT_GT(r.log_index, 0);
      EXPECT_GT(r.integrated_time, 1600000000);
    }
  }
  // What each publisher's certificate says, beyond its kind.
  auto circle =
      verify(attestations_in(assets().dir +
                             "/circleci_sign_publish_example-0.0.1.dev137-py3-none-any.whl.publish.attestation")[0],
             "circleci_sign_publish_example-0.0.1.dev137-py3-none-any.whl", production());
  EXPECT_EQ(circle.publisher.project_id, "fdd9283f-e619-46af-8f9c-851f7d3e8b2b");
  EXPECT_EQ(circle.publisher.pipeline_definition_id, "8e4f8ab2-8d7c-4827-9f15-de076d6d647f");
  EXPECT_EQ(circle.publisher.ref, "refs/heads/pypi");
  auto gh = verify(attestations_in(assets().dir + "/pypi_attestations-0.0.19.tar.gz.publish.attestation")[0],
                   "pypi_attestations-0.0.19.tar.gz", production());
  EXPECT_EQ(gh.publisher.ref, "refs/tags/v0.0.19");
  EXPECT_EQ(gh.publisher.signer_workflow, "trailofbits/pypi-attestations/.github/workflows/release.yml");
  EXPECT_EQ(gh.publisher.sha.size(), 40u);
  auto google = verify(attestations_in(assets().dir + "/gcb_attestation_test-0.0.0.tar.gz.provenance")[0],
                       "gcb_attestation_test-0.0.0.tar.gz", production());
  EXPECT_EQ(google.publisher.email, "919436158236-compute@developer.gserviceaccount.com");
  auto hand = verify(attestations_in(assets().dir + "/rfc8785-0.1.2-py3-none-any.whl.publish.attestation")[0],
                     "rfc8785-0.1.2-py3-none-any.whl", staging());
  EXPECT_EQ(hand.identity.san, "william@yossarian.net");
  EXPECT_EQ(hand.identity.issuer, "https://github.com/login/oauth");
}

// A base64 field with one bit of its decoded byte `at` (modulo the length) flipped.
std::string flip_b64(const json& b64, size_t at) {
  std::string raw;
  EXPECT_TRUE(base64_decode(b64.get<std::string>(), &raw));
  raw[at % raw.size()] ^= 0x01;
  return base64_encode(raw);
}

// One altered byte (or field) per step: each fails at that step and no earlier one.
TEST(Provenance, EachStepFailsOnItsOwnDefect) {
  NEED_ASSETS();
  const std::string dist = "pypi_attestations-0.0.19.tar.gz";
  const json good = attestations_in(assets().dir + "/" + dist + ".publish.attestation")[0];
  const std::string bytes = read_file(assets().dir + "/" + dist);
  auto expect_step = [&](const json& att, const std::string& file_bytes, const std::string& step,
                         const std::string& words, const TrustedRoot& root) {
    auto r = verify_attestation(att, root, dist, sha256_hex(file_bytes));
    EXPECT_FALSE(r.verified);
    EXPECT_EQ(r.step, step) << r.error;
    EXPECT_NE(r.error.find(words), std::string::npos) << r.error;
  };
  ASSERT_TRUE(verify_attestation(good, production(), dist, sha256_hex(bytes)).verified);
  {
    std::string other = bytes;
    other[other.size() / 2] ^= 0x01;
    expect_step(good, other, "statement", "the subject's sha256 is", production());
  }
  {
    auto r = verify_attestation(good, production(), "pypi_attestations-0.0.20.tar.gz", sha256_hex(bytes));
    EXPECT_EQ(r.step, "statement");
    EXPECT_NE(r.error.find("the subject is pypi_attestations-0.0.19.tar.gz"), std::string::npos) << r.error;
  }
  json a = good;
  a["envelope"]["signature"] = flip_b64(good["envelope"]["signature"], 20);
  expect_step(a, bytes, "signature", "DSSE signature does not verify", production());
  a = good;
  a["verification_material"]["certificate"] = flip_b64(good["verification_material"]["certificate"], 1000);
  // A byte of the certificate's TBS (its key unchanged): the CA's signature over it fails.
  expect_step(a, bytes, "certificate", "certificate signature failure", production());
  // The staging root has no CA that issued a production certificate.
  expect_step(good, bytes, "certificate", "the chain does not verify", staging());
  a = good;
  auto& entry = a["verification_material"]["transparency_entries"][0];
  const json& t = entry["integratedTime"];  // a string in these files, as protobuf's JSON writes int64
  entry["integratedTime"] =
      std::to_string((t.is_string() ? std::stoll(t.get<std::string>()) : t.get<int64_t>()) + 86400);
  expect_step(a, bytes, "certificate", "outside the certificate's validity", production());
  a = good;
  a["verification_material"]["transparency_entries"][0]["kindVersion"]["version"] = "0.0.2";
  expect_step(a, bytes, "log entry", "unsupported log entry kind dsse 0.0.2", production());
  a = good;
  {
    auto& e = a["verification_material"]["transparency_entries"][0];
    std::string body;
    ASSERT_TRUE(base64_decode(e["canonicalizedBody"].get<std::string>(), &body));
    auto at = body.find("\"payloadHash\":{\"algorithm\":\"sha256\",\"value\":\"") + 45;
    body[at] = body[at] == '0' ? '1' : '0';
    e["canonicalizedBody"] = base64_encode(body);
  }
  expect_step(a, bytes, "log entry", "payload hash is not the statement's", production());
  a = good;
  {
    auto& hashes = a["verification_material"]["transparency_entries"][0]["inclusionProof"]["hashes"];
    hashes[0] = flip_b64(hashes[0], 3);
  }
  expect_step(a, bytes, "inclusion proof", "does not lead from the entry to the root hash", production());
  a = good;
  {
    auto& cp = a["verification_material"]["transparency_entries"][0]["inclusionProof"]["checkpoint"]["envelope"];
    std::string note = cp;
    auto sig = note.rfind(' ') + 10;  // inside the signature's base64, past the key hint
    note[sig] = note[sig] == 'A' ? 'B' : 'A';
    cp = note;
  }
  expect_step(a, bytes, "checkpoint", "no signature of the log's key verifies the checkpoint", production());
  a = good;
  {
    auto& p = a["verification_material"]["transparency_entries"][0]["inclusionPromise"]["signedEntryTimestamp"];
    p = flip_b64(p, 12);
  }
  expect_step(a, bytes, "signed entry timestamp", "does not verify", production());
  // A trust root without the CT log that gave the certificate its SCT.
  json root = json::parse(read_file(assets().roots + "/https%3A%2F%2Ftuf-repo-cdn.sigstore.dev/trusted_root.json"));
  root["ctlogs"] = json::array();
  expect_step(good, bytes, "sct", "no SCT is from a CT log of the trust root", TrustedRoot::parse(root.dump()));
  // A statement with two subjects.
  a = good;
  {
    std::string st;
    ASSERT_TRUE(base64_decode(good["envelope"]["statement"].get<std::string>(), &st));
    json s = json::parse(st);
    s["subject"].push_back(s["subject"][0]);
    a["envelope"]["statement"] = base64_encode(s.dump());
  }
  expect_step(a, bytes, "statement", "exactly one subject", production());
}

// `check --trusted-root`: attestations found beside each wheel (and in --provenance DIR), verified,
// held to the policy's publisher; the report's provenance summary and text line.
TEST(Provenance, CheckVerifiesWhatLiesBesideEachWheel) {
  NEED_ASSETS();
  testing::TempDir dir;
  const std::string wheel = "circleci_sign_publish_example-0.0.1.dev137-py3-none-any.whl";
  const std::string root = assets().roots + "/https%3A%2F%2Ftuf-repo-cdn.sigstore.dev/trusted_root.json";
  for (const char* suffix : {"", ".publish.attestation", ".provenance"})
    std::filesystem::copy_file(assets().dir + "/" + wheel + suffix, dir.file(wheel + suffix));
  auto r = testing::run_wheelcheck({"check", "--trusted-root", root, "--format", "json", dir.file(wheel)});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = json::parse(r.out)["wheels"][0];
  EXPECT_EQ(j["provenance"]["verified"], true);
  EXPECT_EQ(j["provenance"]["attestations"], 2);
  EXPECT_EQ(j["provenance"]["publisher"], "CircleCI");
  EXPECT_EQ(j["provenance"]["repository"], "github.com/CircleCI-Public/sign-and-publish-examples");
  auto text = testing::run_wheelcheck({"check", "--trusted-root", root, dir.file(wheel)});
  EXPECT_NE(text.out.find("provenance: verified, published by CircleCI github.com/CircleCI-Public/"
                          "sign-and-publish-examples (refs/heads/pypi)"),
            std::string::npos)
      << text.out;
  // Without a trust root: found, not verified, said so.
  auto none = testing::run_wheelcheck({"check", dir.file(wheel)});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_NE(none.out.find("2 attestation(s), not verified (no trust root"), std::string::npos) << none.out;
  // The policy's publisher: the right CircleCI project passes, GitHub is WC912 naming what differs.
  std::ofstream(dir.file("right.json"))
      << R"({"extends": "default", "provenance": {"require": true, "publisher": {"kind": "circleci",
           "project_id": "fdd9283f-e619-46af-8f9c-851f7d3e8b2b", "vcs_origin": "github.com/CircleCI-Public/sign-and-publish-examples",
           "vcs_ref": "refs/heads/*"}}})";
  EXPECT_EQ(testing::run_wheelcheck({"check", "-p", dir.file("right.json"), "--trusted-root", root, dir.file(wheel)})
                .exit_code,
            0);
  std::ofstream(dir.file("wrong.json")) << R"({"extends": "default", "provenance": {"publisher": {"kind": "github",
           "repository": "pytorch/vision", "workflow": "release.yml"}}})";
  auto wrong =
      testing::run_wheelcheck({"check", "-p", dir.file("wrong.json"), "--trusted-root", root, dir.file(wheel)});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.out.find("error   WC912"), std::string::npos) << wrong.out;
  EXPECT_NE(wrong.out.find("publisher kind CircleCI, not github"), std::string::npos) << wrong.out;
  // Another file's attestation in --provenance DIR under this wheel's name: the statement step fails.
  testing::TempDir other;
  std::filesystem::copy_file(assets().dir + "/rfc8785-0.1.2-py3-none-any.whl.publish.attestation",
                             other.file(wheel + ".slsa.attestation"));
  std::ofstream(other.file(wheel + ".publish.attestation")) << "{not json";
  auto bad = testing::run_wheelcheck({"check", "--provenance", other.path(), "--trusted-root", root, dir.file(wheel)});
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
  EXPECT_NE(bad.out.find(".slsa.attestation: does not verify at the statement step: the subject is "
                         "rfc8785-0.1.2-py3-none-any.whl"),
            std::string::npos)
      << bad.out;
  EXPECT_NE(bad.out.find(".publish.attestation: not JSON"), std::string::npos) << bad.out;
  // A trust root older than the policy allows: WC916 once for the run (production's newest key began in 2025).
  std::ofstream(dir.file("age.json")) << R"({"extends": "default", "provenance": {"max_root_age_days": 1}})";
  auto old = testing::run_wheelcheck(
      {"check", "-p", dir.file("age.json"), "--trusted-root", root, "--format", "json", dir.file(wheel)});
  EXPECT_EQ(old.exit_code, 0) << old.out;
  EXPECT_NE(old.out.find("\"WC916\""), std::string::npos) << old.out;
  EXPECT_NE(old.out.find("over provenance.max_root_age_days (1)"), std::string::npos) << old.out;
  std::ofstream(dir.file("age.json")) << R"({"extends": "default", "provenance": {"max_root_age_days": 100000}})";
  auto fresh = testing::run_wheelcheck({"check", "-p", dir.file("age.json"), "--trusted-root", root, dir.file(wheel)});
  EXPECT_EQ(fresh.out.find("WC916"), std::string::npos) << fresh.out;
  // Required, and none beside a wheel: WC913, naming what was looked for.
  testing::WheelBuilder w("plain", "1.0");
  w.add("plain/__init__.py", "");
  std::string plain = w.write(dir.path());
  auto missing = testing::run_wheelcheck({"check", "-p", dir.file("right.json"), "--trusted-root", root, plain});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.out.find("WC913  no PEP 740 attestation (looked for plain-1.0-py3-none-any.whl.provenance"),
            std::string::npos)
      << missing.out;
  // Required without a trust root, or a trust root that is not one: usage errors (exit 2), before any wheel.
  auto no_root = testing::run_wheelcheck({"check", "-p", dir.file("right.json"), plain});
  EXPECT_EQ(no_root.exit_code, 2);
  EXPECT_NE(no_root.err.find("provenance.require needs a Sigstore trust root"), std::string::npos) << no_root.err;
  std::ofstream(dir.file("root.json")) << R"({"tlogs": []})";
  auto bad_root = testing::run_wheelcheck({"check", "--trusted-root", dir.file("root.json"), plain});
  EXPECT_EQ(bad_root.exit_code, 2);
  EXPECT_NE(bad_root.err.find("root.json: not a Sigstore trusted root"), std::string::npos) << bad_root.err;
}

// An sdist as a target (named, or in a folder beside wheels): its provenance is checked as a wheel's
// (its archive and PKG-INFO too: tests/sdist_test.cc).
// PEP 740 on an index (issue 50): a wheel an index page lists is verified against the provenance
// the index offers for it (PEP 691 "provenance", HTML data-provenance) and the sha256 the index
// gives, at either depth; none offered where required is WC913; a 404, a body that is not JSON, a
// redirect loop, a body that never ends (cut at the metadata limit), or an index sha256 that is not
// the attested one is WC911 on that wheel, and the run goes on.
TEST(Provenance, WheelsFromAnIndexAreVerifiedAgainstWhatTheIndexOffers) {
  NEED_ASSETS();
  testing::TempDir dir;
  const std::string wheel = "circleci_sign_publish_example-0.0.1.dev137-py3-none-any.whl";
  const std::string root = assets().roots + "/https%3A%2F%2Ftuf-repo-cdn.sigstore.dev/trusted_root.json";
  std::filesystem::create_directories(dir.file("files"));
  for (const char* suffix : {"", ".provenance"})
    std::filesystem::copy_file(assets().dir + "/" + wheel + suffix, dir.file("files/" + wheel + suffix));
  testing::write_file(dir.file("files/garbage.json"), std::vector<uint8_t>{'n', 'o', 't', ' ', 'j', 's', 'o', 'n'});
  auto bytes = testing::read_file(dir.file("files/" + wheel));
  const std::string sha =
      hex_encode(sha256_bytes(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
  auto page = [&](const std::string& name, const std::string& provenance, const std::string& digest) {
    json file = {{"filename", wheel}, {"url", "../files/" + wheel}, {"hashes", {{"sha256", digest}}}};
    if (!provenance.empty()) file["provenance"] = provenance;
    std::filesystem::create_directories(dir.file(name));
    const std::string text = json{{"meta", {{"api-version", "1.3"}}}, {"name", "x"}, {"files", {file}}}.dump();
    testing::write_file(dir.file(name + "/index.html"), std::vector<uint8_t>(text.begin(), text.end()));
  };
  page("good", "../files/" + wheel + ".provenance", sha);
  page("none", "", sha);
  page("gone", "../files/missing.provenance", sha);
  page("garbage", "../files/garbage.json", sha);
  page("other", "../files/" + wheel + ".provenance", std::string(64, 'a'));
  page("loop", "../redirect-loop/" + wheel + ".provenance", sha);
  page("endless", "../endless-body/" + wheel + ".provenance", sha);
  const std::string html = "<a href=\"../files/" + wheel + "#sha256=" + sha + "\" data-provenance=\"../files/" + wheel +
                           ".provenance\">" + wheel + "</a>\n";
  std::filesystem::create_directories(dir.file("html"));
  testing::write_file(dir.file("html/index.html"), std::vector<uint8_t>(html.begin(), html.end()));
  std::ofstream(dir.file("require.json")) << R"({"extends": "default", "provenance": {"require": true}})";
  // Range-capable, as PyPI is: at metadata depth only a few ranges of the wheel are read.
  testing::ChildServer server(testing::range_server_argv(), dir.path());
  if (!server.up()) GTEST_SKIP() << "could not start a loopback HTTP server";
  auto check = [&](const std::string& index, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"check", "--trusted-root", root, "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(server.url(index + "/"));
    return testing::run_wheelcheck(args);
  };
  for (const auto& [index, depth] :
       {std::pair<std::string, std::string>{"good", "full"}, {"good", "metadata"}, {"html", "full"}}) {
    auto r = check(index, {"--depth", depth});
    ASSERT_EQ(r.exit_code, 0) << index << " " << depth << ": " << r.out << r.err;
    auto w = json::parse(r.out)["wheels"][0];
    EXPECT_EQ(w["provenance"]["verified"], true) << w.dump();
    EXPECT_EQ(w["provenance"]["publisher"], "CircleCI") << w.dump();
    // A full read hashes the bytes as they download: the subjects are matched to them; at metadata
    // depth the index's sha256 stands in, and the report says so.
    EXPECT_EQ(w["provenance"].value("subject_digest", "").find("the index's sha256") != std::string::npos,
              depth == "metadata")
        << w.dump();
  }
  auto none = check("none", {"-p", dir.file("require.json")});
  EXPECT_EQ(none.exit_code, 1) << none.out;
  EXPECT_NE(none.out.find("WC913"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("the index offers none"), std::string::npos) << none.out;
  for (const auto& [index, says] : {std::pair<std::string, std::string>{"gone", "could not be fetched from the index"},
                                    {"garbage", "not JSON"},
                                    {"loop", "more than 10 redirects"},
                                    {"endless", "reply larger than 16777216 bytes"}}) {
    auto r = check(index);
    EXPECT_EQ(r.exit_code, 1) << index << ": " << r.out << r.err;
    EXPECT_NE(r.out.find("WC911"), std::string::npos) << index << ": " << r.out;
    EXPECT_NE(r.out.find(says), std::string::npos) << index << ": " << r.out;
  }
  // An index sha256 that is not the attested one: at metadata depth the attestation does not verify
  // against it (WC911); a full read has the bytes, which do verify, and are not what the index says
  // (WC407).
  auto shallow = check("other", {"--depth", "metadata"});
  EXPECT_EQ(shallow.exit_code, 1) << shallow.out;
  EXPECT_NE(shallow.out.find("does not verify"), std::string::npos) << shallow.out;
  auto full = check("other");
  EXPECT_EQ(full.exit_code, 1) << full.out;
  EXPECT_NE(full.out.find("WC407"), std::string::npos) << full.out;
  EXPECT_EQ(full.out.find("WC911"), std::string::npos) << full.out;
  // Without a trust root nothing is fetched (nothing could be verified).
  auto plain = testing::run_wheelcheck({"check", "--format", "json", server.url("gone/")});
  EXPECT_EQ(plain.exit_code, 0) << plain.out;
}

TEST(Provenance, SdistTargetsCarryProvenance) {
  NEED_ASSETS();
  testing::TempDir dir;
  const std::string sdist = "pypi_attestations-0.0.19.tar.gz";
  const std::string root = assets().roots + "/https%3A%2F%2Ftuf-repo-cdn.sigstore.dev/trusted_root.json";
  for (const char* suffix : {"", ".publish.attestation", ".slsa.attestation"})
    std::filesystem::copy_file(assets().dir + "/" + sdist + suffix, dir.file(sdist + suffix));
  std::ofstream(dir.file("gh.json")) << R"({"extends": "default", "provenance": {"require": true, "publisher": {
      "kind": "github", "repository": "trailofbits/pypi-attestations", "workflow": "release.yml", "ref": "refs/tags/v*"}}})";
  auto r = testing::run_wheelcheck(
      {"check", "-p", dir.file("gh.json"), "--trusted-root", root, "--format", "json", dir.file(sdist)});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = json::parse(r.out)["wheels"][0];
  EXPECT_EQ(j["provenance"]["verified"], true);
  EXPECT_EQ(j["provenance"]["attestations"], 2);
  EXPECT_EQ(j["provenance"]["ref"], "refs/tags/v0.0.19");
  EXPECT_TRUE(j["findings"].empty()) << j;
  // Found in a folder beside a wheel; held to another publisher, it fails; without its attestations, WC913.
  testing::WheelBuilder w("plain", "1.0");
  w.add("plain/__init__.py", "");
  w.write(dir.path());
  std::ofstream(dir.file("other.json")) << R"({"extends": "default", "provenance": {"publisher": {
      "kind": "github", "repository": "pytorch/vision"}}})";
  auto other = testing::run_wheelcheck({"check", "-p", dir.file("other.json"), "--trusted-root", root, dir.path()});
  EXPECT_EQ(other.exit_code, 1) << other.out;
  EXPECT_NE(other.out.find("repository trailofbits/pypi-attestations, not pytorch/vision"), std::string::npos)
      << other.out;
  EXPECT_NE(other.out.find("a source distribution (tar.gz, 23 entries, PKG-INFO Metadata-Version 2.1"),
            std::string::npos)
      << other.out;
  std::filesystem::remove(dir.file(sdist + ".publish.attestation"));
  std::filesystem::remove(dir.file(sdist + ".slsa.attestation"));
  auto none = testing::run_wheelcheck({"check", "-p", dir.file("gh.json"), "--trusted-root", root, dir.file(sdist)});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.out.find("WC913  no PEP 740 attestation (looked for " + sdist + ".provenance"), std::string::npos)
      << none.out;
}

TEST(Provenance, MalformedInputIsAnErrorNeverACrash) {
  EXPECT_THROW(TrustedRoot::parse("{"), std::runtime_error);
  EXPECT_THROW(TrustedRoot::parse("{}"), std::runtime_error);
  try {
    TrustedRoot::parse(R"({"tlogs": [{"publicKey": {"rawBytes": "AAAA"}, "logId": {"keyId": "AAAA"}}]})");
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("tlogs[0]: a public key is not DER"), std::string::npos) << e.what();
  }
  NEED_ASSETS();
  for (const json& bad :
       {json(nullptr), json::object(), json{{"version", 1}},
        json{{"version", 1}, {"verification_material", {{"certificate", "!!"}}}}, json{{"version", 2}}}) {
    auto r = verify_attestation(bad, production(), "x-1.0.tar.gz", std::string(64, '0'));
    EXPECT_FALSE(r.verified);
    EXPECT_EQ(r.step, "statement") << bad;
    EXPECT_NE(r.error.find("malformed attestation"), std::string::npos) << r.error;
  }
}

// A provenance file of many bundles or attestations is read up to 64 of them (PyPI keeps one or
// two per file), whatever their JSON types; the rest are dropped while parsing and said once.
TEST(Provenance, AttestationsBeyondTheCapAreDroppedWhileParsing) {
  auto provenance = [](size_t bundles, size_t per_bundle, const std::string& attestation) {
    std::string text = R"({"version": 1, "attestation_bundles": [)";
    for (size_t b = 0; b < bundles; ++b) {
      text += std::string(b ? "," : "") + R"({"publisher": {"kind": "GitHub"}, "attestations": [)";
      for (size_t a = 0; a < per_bundle; ++a) text += (a ? "," : "") + attestation;
      text += "]}";
    }
    return text + "]}";
  };
  ProvenanceFacts few;
  read_attestations(provenance(2, 1, R"({"version": 1})"), "x.whl.provenance", few);
  EXPECT_EQ(few.attestations.size(), 2u);
  EXPECT_TRUE(few.errors.empty()) << few.errors.front();
  for (auto [bundles, each] : {std::pair<size_t, size_t>{200000, 1}, {1, 200000}, {1000, 1000}}) {
    ProvenanceFacts p;
    read_attestations(provenance(bundles, each, "[]"), "x.whl.provenance", p);
    EXPECT_EQ(p.attestations.size(), 64u) << bundles << " x " << each;
    ASSERT_FALSE(p.errors.empty());
    EXPECT_NE(
        p.errors.front().find("x.whl.provenance: more than 64 attestations or bundles; only the first 64 were read"),
        std::string::npos)
        << p.errors.front();
  }
  // A list named "attestations" deeper down is data of one attestation, not more of them; nesting
  // past 64 levels is refused, not followed.
  std::string inner;
  for (int i = 0; i < 100; ++i) inner += std::string(i ? "," : "") + "{}";
  ProvenanceFacts nested;
  read_attestations(R"({"attestation_bundles": [{"attestations": [{"x": {"attestations": [)" + inner + "]}}]}]}",
                    "y.provenance", nested);
  EXPECT_EQ(nested.attestations.size(), 1u);
  EXPECT_TRUE(nested.errors.empty()) << nested.errors.front();
  ProvenanceFacts deep;
  read_attestations(
      R"({"attestation_bundles": [{"attestations": [)" + std::string(4000, '[') + std::string(4000, ']') + "]}]}",
      "z.provenance", deep);
  ASSERT_FALSE(deep.errors.empty());
  EXPECT_NE(deep.errors.back().find("z.provenance: not JSON"), std::string::npos) << deep.errors.back();
}

// Opt-in (`make test-crosscheck`, WHEELCHECK_CROSSCHECK=1): pypi-attestations 0.0.31, installed
// from PyPI into a cached venv, judges the same attestations offline, the real ones and one altered
// field per step; its verdict and ours agree on every case.
TEST(ProvenanceCrossCheck, PypiAttestationsAgrees) {
  if (!std::getenv("WHEELCHECK_CROSSCHECK"))
    GTEST_SKIP() << "opt-in: WHEELCHECK_CROSSCHECK=1 (make test-crosscheck) installs pypi-attestations from PyPI";
  NEED_ASSETS();
  const char* home = std::getenv("HOME");
  const std::string cache = std::string(home && *home ? home : "/tmp") + "/.cache/wheelcheck-tests";
  auto venv = testing::run_command(
      "python3 " + testing::shell_quote(std::string(WC_SOURCE_DIR) + "/tools/wc_cache.py") + " venv " +
      testing::shell_quote(cache + "/venv-pypi-attestations-0.0.31") + " pypi-attestations==0.0.31");
  if (venv.exit_code == 3) GTEST_SKIP() << "the package index is offline: " << venv.err;
  ASSERT_EQ(venv.exit_code, 0) << venv.err;
  std::string bin = venv.out.substr(0, venv.out.find_last_not_of('\n') + 1);
  bin = bin.substr(bin.rfind('\n') + 1);

  struct Case {
    std::string dist;
    json attestation;
    bool staging;
    std::string what;
  };
  std::vector<Case> cases;
  for (const auto& [dist, suffix, staging] : std::vector<std::tuple<std::string, std::string, bool>>{
           {"circleci_sign_publish_example-0.0.1.dev137-py3-none-any.whl", ".publish.attestation", false},
           {"pypi_attestations-0.0.19.tar.gz", ".publish.attestation", false},
           {"pypi_attestations-0.0.19.tar.gz", ".slsa.attestation", false},
           {"gitlab_oidc_project-0.0.3.tar.gz", ".publish.attestation", false},
           {"gcb_attestation_test-0.0.0.tar.gz", ".provenance", false},
           {"rfc8785-0.1.2-py3-none-any.whl", ".publish.attestation", true}})
    for (const auto& a : attestations_in(assets().dir + "/" + dist + suffix))
      cases.push_back({dist, a, staging, suffix});
  const json good = attestations_in(assets().dir + "/pypi_attestations-0.0.19.tar.gz.publish.attestation")[0];
  auto altered = [&](const std::string& what, const std::function<void(json&)>& change) {
    json a = good;
    change(a);
    cases.push_back({"pypi_attestations-0.0.19.tar.gz", a, false, what});
  };
  auto flip = [](json& field, size_t at) { field = flip_b64(field, at); };
  auto entry = [](json& a) -> json& { return a["verification_material"]["transparency_entries"][0]; };
  altered("signature", [&](json& a) { flip(a["envelope"]["signature"], 20); });
  altered("certificate", [&](json& a) { flip(a["verification_material"]["certificate"], 1000); });
  altered("statement", [&](json& a) { flip(a["envelope"]["statement"], 40); });
  altered("set", [&](json& a) { flip(entry(a)["inclusionPromise"]["signedEntryTimestamp"], 12); });
  altered("proof", [&](json& a) { flip(entry(a)["inclusionProof"]["hashes"][0], 3); });
  altered("body", [&](json& a) { flip(entry(a)["canonicalizedBody"], 60); });
  altered("kind", [&](json& a) { entry(a)["kindVersion"]["version"] = "0.0.2"; });
  // The file itself altered: the subject's digest no longer matches.
  testing::TempDir dir;
  std::filesystem::copy_file(assets().dir + "/rfc8785-0.1.2-py3-none-any.whl",
                             dir.file("rfc8785-0.1.2-py3-none-any.whl"));
  {
    std::fstream f(dir.file("rfc8785-0.1.2-py3-none-any.whl"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x7f');
  }
  cases.push_back({"", attestations_in(assets().dir + "/rfc8785-0.1.2-py3-none-any.whl.publish.attestation")[0], true,
                   "altered file"});

  json list = json::array();
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string dist =
        cases[i].dist.empty() ? dir.file("rfc8785-0.1.2-py3-none-any.whl") : assets().dir + "/" + cases[i].dist;
    const std::string att = dir.file("case" + std::to_string(i) + ".json");
    std::ofstream(att) << cases[i].attestation.dump();
    list.push_back({{"dist", dist}, {"attestation", att}, {"staging", cases[i].staging}});
  }
  std::ofstream(dir.file("cases.json")) << list.dump();
  auto ref =
      testing::run_command(testing::shell_quote(bin + "/python") + " " +
                           testing::shell_quote(std::string(WC_SOURCE_DIR) + "/tests/tools/attestation_verdicts.py") +
                           " " + testing::shell_quote(dir.file("cases.json")));
  ASSERT_EQ(ref.exit_code, 0) << ref.err;
  json verdicts = json::parse(ref.out);
  ASSERT_EQ(verdicts.size(), cases.size());
  size_t agreed = 0, refused = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string dist = list[i]["dist"];
    const std::string bytes = read_file(dist);
    auto ours = verify_attestation(cases[i].attestation, cases[i].staging ? staging() : production(),
                                   std::filesystem::path(dist).filename().string(), sha256_hex(bytes));
    EXPECT_EQ(ours.verified, verdicts[i]["ok"].get<bool>())
        << cases[i].what << " " << dist << ": ours " << ours.step << " " << ours.error << "; pypi-attestations "
        << verdicts[i]["error"];
    agreed += ours.verified == verdicts[i]["ok"].get<bool>();
    refused += !ours.verified;
  }
  std::cout << "[ crosscheck ] " << agreed << " of " << cases.size() << " verdicts agree (" << refused
            << " refused by both or by us)\n";
}

// The reference: RFC 6962's MTH and PATH (support/rfc6962.h), for every leaf of trees of 1 to 33 leaves.
std::string leaf(int i) { return sha256_bytes(std::string(1, '\0') + "leaf " + std::to_string(i)); }

TEST(Provenance, MerkleInclusionAtEveryEdge) {
  std::vector<std::string> leaves;
  for (int i = 0; i < 33; ++i) leaves.push_back(leaf(i));
  for (uint64_t n = 1; n <= 33; ++n) {
    const std::string root = testing::mth(leaves, 0, n);
    for (uint64_t m = 0; m < n; ++m) {
      auto p = testing::audit_path(leaves, m, 0, n);
      EXPECT_TRUE(merkle_inclusion_ok(m, n, leaf(static_cast<int>(m)), p, root)) << m << " of " << n;
      // Another index, another leaf, a proof one hash short or long fails. (Another tree size may pass
      // where the tree has the same shape along the path: the checkpoint's signature binds the size.)
      if (n > 1) {
        EXPECT_FALSE(merkle_inclusion_ok((m + 1) % n, n, leaf(static_cast<int>(m)), p, root)) << m << "/" << n;
      }
      EXPECT_FALSE(merkle_inclusion_ok(m, n, leaf(static_cast<int>(m) + 100), p, root));
      if (!p.empty()) {
        auto shorter = p;
        shorter.pop_back();
        EXPECT_FALSE(merkle_inclusion_ok(m, n, leaf(static_cast<int>(m)), shorter, root));
      }
      auto longer = p;
      longer.push_back(root);
      EXPECT_FALSE(merkle_inclusion_ok(m, n, leaf(static_cast<int>(m)), longer, root));
    }
    EXPECT_FALSE(merkle_inclusion_ok(n, n, leaf(0), {}, root));
  }
}

TEST(Provenance, SameDistribution) {
  EXPECT_TRUE(same_distribution("Foo_Bar-1.0-py3-none-any.whl", "foo_bar-1.0.0-py3-none-any.whl"));
  EXPECT_TRUE(same_distribution("x-1.0-py2.py3-none-any.whl", "x-1.0-py3.py2-none-any.whl"));
  EXPECT_FALSE(same_distribution("x-1.0-py3-none-any.whl", "x-1.0-1-py3-none-any.whl"));
  EXPECT_FALSE(same_distribution("x-1.0-py3-none-any.whl", "x-1.1-py3-none-any.whl"));
  EXPECT_TRUE(same_distribution("x-1.0.tar.gz", "x-1.0.0.tar.gz"));  // packaging's parse_sdist_filename agrees
  EXPECT_TRUE(same_distribution("Foo.Bar-1.0.tar.gz", "foo_bar-1.0.tar.gz"));
  EXPECT_FALSE(same_distribution("x-1.0.tar.gz", "x-1.1.tar.gz"));
  EXPECT_FALSE(same_distribution("x-1.0.tar.gz", "y-1.0.tar.gz"));
  EXPECT_FALSE(same_distribution("x-1.0.tar.gz", "x-1.0-py3-none-any.whl"));
  EXPECT_FALSE(same_distribution("x-notaversion.tar.gz", "x-1.0.tar.gz"));
  EXPECT_TRUE(same_distribution("x-1.0.tar.gz", "x-1.0.tar.gz"));
}

}  // namespace
}  // namespace wc
