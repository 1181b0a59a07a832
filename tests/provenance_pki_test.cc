// PEP 740 verification against a test PKI built here with OpenSSL (issue 34): a Fulcio-like root and
// intermediate, a CT log and a Rekor log, each test attestation carrying exactly one defect that
// real attestations cannot show (a rogue intermediate, an SCT over another issuer's key, times at the
// certificate's validity edges, proofs at the edges of trees, a leaf without key usage, a moved
// integrated time under the SET), and hostile JSON. Everything runs offline.
#include <gtest/gtest.h>
#include <openssl/ct.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "provenance/sigstore.h"
#include "support/rfc6962.h"
#include "support/test_support.h"
#include "util/digest.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using json = nlohmann::json;

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
  void operator()(X509* c) const { X509_free(c); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

Key ec_key(const char* curve = "P-256") { return Key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", curve)); }

template <class F>
std::string der(F i2d) {
  unsigned char* b = nullptr;
  int n = i2d(&b);
  std::string s(reinterpret_cast<char*>(b), static_cast<size_t>(std::max(n, 0)));
  OPENSSL_free(b);
  return s;
}
std::string spki(EVP_PKEY* k) {
  return der([&](unsigned char** b) { return i2d_PUBKEY(k, b); });
}
std::string cert_der(X509* c) {
  return der([&](unsigned char** b) { return i2d_X509(c, b); });
}
std::string cert_pem(X509* c) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, c);
  char* p = nullptr;
  long n = BIO_get_mem_data(bio, &p);
  std::string s(p, static_cast<size_t>(n));
  BIO_free(bio);
  return s;
}
std::string sign(EVP_PKEY* k, std::string_view data) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const EVP_MD* md = EVP_PKEY_get_id(k) == EVP_PKEY_ED25519 ? nullptr
                     : EVP_PKEY_get_bits(k) > 256           ? EVP_sha384()
                                                            : EVP_sha256();
  EVP_DigestSignInit(ctx, nullptr, md, nullptr, k);
  size_t n = 0;
  EVP_DigestSign(ctx, nullptr, &n, reinterpret_cast<const unsigned char*>(data.data()), data.size());
  std::string sig(n, '\0');
  EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &n,
                 reinterpret_cast<const unsigned char*>(data.data()), data.size());
  EVP_MD_CTX_free(ctx);
  sig.resize(n);
  return sig;
}

void add_ext(X509* c, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer ? issuer : c, c, nullptr, nullptr, 0);
  X509_EXTENSION* e = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  ASSERT_NE(e, nullptr) << nid << " " << value;
  X509_add_ext(c, e, -1);
  X509_EXTENSION_free(e);
}
// A Sigstore extension: a DER UTF8String under 1.3.6.1.4.1.57264.1.x.
void add_sigstore_ext(X509* c, const std::string& oid, const std::string& value) {
  ASN1_UTF8STRING* s = ASN1_UTF8STRING_new();
  ASN1_STRING_set(s, value.data(), static_cast<int>(value.size()));
  std::string d = der([&](unsigned char** b) { return i2d_ASN1_UTF8STRING(s, b); });
  ASN1_UTF8STRING_free(s);
  ASN1_OCTET_STRING* os = ASN1_OCTET_STRING_new();
  ASN1_OCTET_STRING_set(os, reinterpret_cast<const unsigned char*>(d.data()), static_cast<int>(d.size()));
  ASN1_OBJECT* obj = OBJ_txt2obj(("1.3.6.1.4.1.57264.1." + oid).c_str(), 1);
  X509_EXTENSION* e = X509_EXTENSION_create_by_OBJ(nullptr, obj, 0, os);
  X509_add_ext(c, e, -1);
  X509_EXTENSION_free(e);
  ASN1_OBJECT_free(obj);
  ASN1_OCTET_STRING_free(os);
}

Cert new_cert(const std::string& cn, EVP_PKEY* key, int64_t not_before, int64_t not_after, long serial) {
  Cert c(X509_new());
  X509_set_version(c.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(c.get()), serial);
  X509_NAME* name = X509_NAME_new();
  if (!cn.empty())  // Fulcio's leaves have an empty subject
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_subject_name(c.get(), name);
  X509_NAME_free(name);
  X509_time_adj_ex(X509_getm_notBefore(c.get()), 0, 0, reinterpret_cast<time_t*>(&not_before));
  X509_time_adj_ex(X509_getm_notAfter(c.get()), 0, 0, reinterpret_cast<time_t*>(&not_after));
  X509_set_pubkey(c.get(), key);
  return c;
}

// A CA certificate: self-signed when `issuer` is null.
Cert ca_cert(const std::string& cn, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key, int64_t now) {
  Cert c = new_cert(cn, key, now - 365 * 86400, now + 3650 * 86400, 1);
  X509_set_issuer_name(c.get(), issuer ? X509_get_subject_name(issuer) : X509_get_subject_name(c.get()));
  add_ext(c.get(), issuer, NID_basic_constraints, issuer ? "critical,CA:TRUE,pathlen:0" : "critical,CA:TRUE");
  add_ext(c.get(), issuer, NID_key_usage, "critical,keyCertSign,cRLSign");
  add_ext(c.get(), issuer, NID_subject_key_identifier, "hash");
  X509_sign(c.get(), issuer_key ? issuer_key : key, EVP_sha256());
  return c;
}

// How a test attestation departs from a good one: one defect per case.
struct Defects {
  bool no_key_usage = false, no_ext_key_usage = false, leaf_is_ca = false;
  bool sct_wrong_issuer_hash = false;
  int64_t leaf_start_offset = 0;  // the leaf's notBefore relative to the integrated time
  int64_t leaf_lifetime = 600;
  bool leaf_month_13 = false;  // notBefore "251301000000Z": a time no calendar has, signed all the same
  uint64_t tree_size = 7, index = 3;
  std::string curve = "P-256";  // the leaf's key
  std::string repository = "acme/widget", workflow = "release.yml", ref = "refs/tags/v1.0";
};

struct Pki {
  int64_t now = 1750000000;  // a fixed moment: the certificates' validity is judged at integrated times
  Key root_key = ec_key(), inter_key = ec_key(), ct_key = ec_key(), rekor_key = ec_key();
  Cert root, inter;
  Pki() {
    root = ca_cert("test-fulcio-root", root_key.get(), nullptr, nullptr, now);
    inter = ca_cert("test-fulcio-intermediate", inter_key.get(), root.get(), root_key.get(), now);
  }
  static json log_entry(EVP_PKEY* k, int64_t start) {
    const std::string key = spki(k);
    return {{"baseUrl", "https://log.test"},
            {"hashAlgorithm", "SHA2_256"},
            {"publicKey",
             {{"rawBytes", base64_encode(key)},
              {"keyDetails", "PKIX_ECDSA_P256_SHA_256"},
              {"validFor", {{"start", "2024-01-01T00:00:00Z"}}}}},
            {"logId", {{"keyId", base64_encode(sha256_bytes(key))}}},
            {"start", start}};
  }
  json trusted_root() const {
    json tl = log_entry(rekor_key.get(), 0), ct = log_entry(ct_key.get(), 0);
    tl.erase("start"), ct.erase("start");
    return {{"mediaType", "application/vnd.dev.sigstore.trustedroot+json;version=0.1"},
            {"tlogs", {tl}},
            {"ctlogs", {ct}},
            {"certificateAuthorities",
             {{{"subject", {{"organization", "test"}, {"commonName", "test"}}},
               {"uri", "https://fulcio.test"},
               {"certChain",
                {{"certificates",
                  {{{"rawBytes", base64_encode(cert_der(inter.get()))}},
                   {{"rawBytes", base64_encode(cert_der(root.get()))}}}}}},
               {"validFor", {{"start", "2024-01-01T00:00:00Z"}}}}}}};
  }

  // A Fulcio-like leaf for a GitHub workflow, its SCT embedded; signed by `ca` (the intermediate
  // unless a rogue one is given).
  Cert leaf(EVP_PKEY* key, int64_t t, const Defects& d, X509* ca = nullptr, EVP_PKEY* ca_key = nullptr) const {
    if (!ca) ca = inter.get(), ca_key = inter_key.get();
    Cert c = new_cert("", key, t + d.leaf_start_offset, t + d.leaf_start_offset + d.leaf_lifetime, 42);
    if (d.leaf_month_13) ASN1_STRING_set(X509_getm_notBefore(c.get()), "251301000000Z", 13);
    X509_set_issuer_name(c.get(), X509_get_subject_name(ca));
    if (!d.no_key_usage) add_ext(c.get(), ca, NID_key_usage, "critical,digitalSignature");
    if (!d.no_ext_key_usage) add_ext(c.get(), ca, NID_ext_key_usage, "codeSigning");
    if (d.leaf_is_ca) add_ext(c.get(), ca, NID_basic_constraints, "critical,CA:TRUE");
    const std::string repo = "https://github.com/" + d.repository;
    const std::string config = repo + "/.github/workflows/" + d.workflow + "@" + d.ref;
    add_ext(c.get(), ca, NID_subject_alt_name, ("critical,URI:" + config).c_str());
    add_sigstore_ext(c.get(), "8", "https://token.actions.githubusercontent.com");
    add_sigstore_ext(c.get(), "9", config);
    add_sigstore_ext(c.get(), "12", repo);
    add_sigstore_ext(c.get(), "13", std::string(40, 'a'));
    add_sigstore_ext(c.get(), "14", d.ref);
    add_sigstore_ext(c.get(), "18", config);
    X509_sign(c.get(), ca_key, EVP_sha256());
    // RFC 6962 3.2: the SCT over the precertificate's TBS (this one, before the SCT list is added)
    // and the issuer's key hash.
    const std::string tbs = der([&](unsigned char** b) { return i2d_re_X509_tbs(c.get(), b); });
    const uint64_t ts = static_cast<uint64_t>(t) * 1000;
    std::string data(2, '\0');
    for (int b = 7; b >= 0; --b) data += static_cast<char>((ts >> (8 * b)) & 0xff);
    data += std::string("\0\1", 2);
    EVP_PKEY* hashed = d.sct_wrong_issuer_hash ? root_key.get() : X509_get0_pubkey(ca);
    data += sha256_bytes(spki(hashed));
    data += static_cast<char>(tbs.size() >> 16), data += static_cast<char>((tbs.size() >> 8) & 0xff),
        data += static_cast<char>(tbs.size() & 0xff);
    data += tbs;
    data += std::string(2, '\0');
    const std::string sig = sign(ct_key.get(), data);
    const std::string log_id = sha256_bytes(spki(ct_key.get()));
    SCT* sct = SCT_new();
    SCT_set_version(sct, SCT_VERSION_V1);
    SCT_set_log_entry_type(sct, CT_LOG_ENTRY_TYPE_PRECERT);
    SCT_set1_log_id(sct, reinterpret_cast<const unsigned char*>(log_id.data()), log_id.size());
    SCT_set_timestamp(sct, ts);
    SCT_set_signature_nid(sct, NID_ecdsa_with_SHA256);
    SCT_set1_signature(sct, reinterpret_cast<const unsigned char*>(sig.data()), sig.size());
    STACK_OF(SCT)* list = sk_SCT_new_null();
    sk_SCT_push(list, sct);
    X509_add1_ext_i2d(c.get(), NID_ct_precert_scts, list, 0, X509V3_ADD_APPEND);
    SCT_LIST_free(list);
    X509_sign(c.get(), ca_key, EVP_sha256());
    return c;
  }
};

const std::string kFile = "widget-1.0-py3-none-any.whl";
const std::string kSha = std::string(64, 'c');

// A whole attestation of `file` (sha256 `sha`) at integrated time t, signed by a leaf Pki makes.
json attest(const Pki& pki, const Defects& d = {}, const std::string& file = kFile, const std::string& sha = kSha,
            int64_t t = 1750000100, X509* rogue = nullptr, EVP_PKEY* rogue_key = nullptr) {
  Key leaf_key = ec_key(d.curve.c_str());
  Cert leaf = pki.leaf(leaf_key.get(), t, d, rogue, rogue_key);
  const std::string statement = json{
      {"_type", "https://in-toto.io/Statement/v1"},
      {"subject", {{{"name", file}, {"digest", {{"sha256", sha}}}}}},
      {"predicateType", kPublishPredicate},
      {"predicate", nullptr}}.dump();
  const std::string type = "application/vnd.in-toto+json";
  const std::string pae =
      "DSSEv1 " + std::to_string(type.size()) + " " + type + " " + std::to_string(statement.size()) + " " + statement;
  const std::string sig = sign(leaf_key.get(), pae);
  json spec;
  spec["payloadHash"] = {{"algorithm", "sha256"}, {"value", hex_encode(sha256_bytes(statement))}};
  spec["signatures"] =
      json::array({json{{"signature", base64_encode(sig)}, {"verifier", base64_encode(cert_pem(leaf.get()))}}});
  const std::string body = json{{"apiVersion", "0.0.1"}, {"kind", "dsse"}, {"spec", spec}}.dump();
  std::vector<std::string> leaves;
  for (uint64_t i = 0; i < d.tree_size; ++i)
    leaves.push_back(sha256_bytes(std::string(1, '\0') + (i == d.index ? body : "other " + std::to_string(i))));
  const std::string root = testing::mth(leaves, 0, d.tree_size);
  std::vector<json> hashes;
  for (const auto& h : testing::audit_path(leaves, d.index, 0, d.tree_size)) hashes.push_back(base64_encode(h));
  const std::string key_id = sha256_bytes(spki(pki.rekor_key.get()));
  const std::string note_text = "log.test - 1\n" + std::to_string(d.tree_size) + "\n" + base64_encode(root) + "\n";
  const std::string note = note_text + "\n\xE2\x80\x94 log.test " +
                           base64_encode(key_id.substr(0, 4) + sign(pki.rekor_key.get(), note_text)) + "\n";
  const int64_t log_index = 1000 + static_cast<int64_t>(d.index);
  const std::string set = sign(
      pki.rekor_key.get(),
      json{{"body", base64_encode(body)}, {"integratedTime", t}, {"logID", hex_encode(key_id)}, {"logIndex", log_index}}
          .dump());
  json entry = {{"logIndex", std::to_string(log_index)},
                {"logId", {{"keyId", base64_encode(key_id)}}},
                {"kindVersion", {{"kind", "dsse"}, {"version", "0.0.1"}}},
                {"integratedTime", std::to_string(t)},
                {"inclusionPromise", {{"signedEntryTimestamp", base64_encode(set)}}},
                {"inclusionProof",
                 {{"logIndex", std::to_string(d.index)},
                  {"rootHash", base64_encode(root)},
                  {"treeSize", std::to_string(d.tree_size)},
                  {"hashes", hashes},
                  {"checkpoint", {{"envelope", note}}}}},
                {"canonicalizedBody", base64_encode(body)}};
  return {{"version", 1},
          {"verification_material",
           {{"certificate", base64_encode(cert_der(leaf.get()))}, {"transparency_entries", {entry}}}},
          {"envelope", {{"statement", base64_encode(statement)}, {"signature", base64_encode(sig)}}}};
}

const Pki& pki() {
  static const Pki p;
  return p;
}
const TrustedRoot& root() {
  static const TrustedRoot r = TrustedRoot::parse(pki().trusted_root().dump());
  return r;
}

void expect_fails(const json& att, const std::string& step, const std::string& words, const TrustedRoot& r = root(),
                  const std::string& file = kFile, const std::string& sha = kSha) {
  auto v = verify_attestation(att, r, file, sha);
  EXPECT_FALSE(v.verified);
  EXPECT_EQ(v.step, step) << v.error;
  EXPECT_NE(v.error.find(words), std::string::npos) << v.error;
}

TEST(ProvenancePki, AGoodAttestationVerifiesWithItsPublisher) {
  auto v = verify_attestation(attest(pki()), root(), kFile, kSha);
  ASSERT_TRUE(v.verified) << v.step << ": " << v.error;
  EXPECT_EQ(v.publisher.kind, "GitHub");
  EXPECT_EQ(v.publisher.repository, "acme/widget");
  EXPECT_EQ(v.publisher.workflow, "release.yml");
  EXPECT_EQ(v.publisher.ref, "refs/tags/v1.0");
  EXPECT_EQ(v.log_index, 1003);
  // A P-384 signing key: its DSSE signature is over SHA-384.
  Defects p384;
  p384.curve = "P-384";
  auto w = verify_attestation(attest(pki(), p384), root(), kFile, kSha);
  EXPECT_TRUE(w.verified) << w.step << ": " << w.error;
}

// Every leaf position at the edges of trees: the first and last leaf, trees of 1, 2, 2^k and 2^k+1.
TEST(ProvenancePki, InclusionProofsAtTreeEdges) {
  for (uint64_t n : {1, 2, 3, 8, 9, 16, 17}) {
    for (uint64_t i : {uint64_t{0}, n / 2, n - 1}) {
      Defects d;
      d.tree_size = n, d.index = i;
      auto v = verify_attestation(attest(pki(), d), root(), kFile, kSha);
      EXPECT_TRUE(v.verified) << i << " of " << n << ": " << v.step << ": " << v.error;
    }
  }
  // The proof's tree size changed (and the checkpoint with it, unsigned): the proof no longer leads to the root.
  Defects d;
  d.tree_size = 9, d.index = 8;
  json a = attest(pki(), d);
  a["verification_material"]["transparency_entries"][0]["inclusionProof"]["treeSize"] = "10";
  expect_fails(a, "inclusion proof", "does not lead from the entry");
  // A valid checkpoint from another attestation's tree: its size and root are not this proof's.
  json other = attest(pki());
  a = attest(pki(), d);
  a["verification_material"]["transparency_entries"][0]["inclusionProof"]["checkpoint"] =
      other["verification_material"]["transparency_entries"][0]["inclusionProof"]["checkpoint"];
  expect_fails(a, "checkpoint", "tree size or root hash is not the proof's");
}

TEST(ProvenancePki, CertificateDefects) {
  const int64_t t = 1750000100;
  // Validity edges: the integrated time at notBefore and at notAfter passes, one second outside fails.
  for (auto [offset, ok] : {std::pair<int64_t, bool>{0, true}, {-600, true}, {1, false}, {-601, false}}) {
    Defects d;
    d.leaf_start_offset = offset;
    auto v = verify_attestation(attest(pki(), d, kFile, kSha, t), root(), kFile, kSha);
    EXPECT_EQ(v.verified, ok) << offset << ": " << v.step << ": " << v.error;
    if (!ok) {
      EXPECT_NE(v.error.find("outside the certificate's validity"), std::string::npos) << v.error;
    }
  }
  // A rogue intermediate with the real one's name, its own key, under a root of its own.
  Key rogue_root_key = ec_key(), rogue_key = ec_key();
  Cert rogue_root = ca_cert("test-fulcio-root", rogue_root_key.get(), nullptr, nullptr, pki().now);
  Cert rogue = ca_cert("test-fulcio-intermediate", rogue_key.get(), rogue_root.get(), rogue_root_key.get(), pki().now);
  expect_fails(attest(pki(), {}, kFile, kSha, t, rogue.get(), rogue_key.get()), "certificate", "chain does not verify");
  Defects d;
  d.no_key_usage = true;
  expect_fails(attest(pki(), d), "certificate", "key usage lacks digitalSignature");
  d = {};
  d.no_ext_key_usage = true;
  expect_fails(attest(pki(), d), "certificate", "extended key usage lacks codeSigning");
  d = {};
  d.leaf_is_ca = true;
  auto ca = verify_attestation(attest(pki(), d), root(), kFile, kSha);
  EXPECT_FALSE(ca.verified);
  EXPECT_EQ(ca.step, "certificate") << ca.error;
  // The SCT signed over the root's key hash, not the issuing intermediate's.
  d = {};
  d.sct_wrong_issuer_hash = true;
  expect_fails(attest(pki(), d), "sct", "SCT's signature does not verify");
  // The CA's validity window in the trust root begins after the integrated time.
  json r = pki().trusted_root();
  r["certificateAuthorities"][0]["validFor"]["start"] = "2026-01-01T00:00:00Z";
  expect_fails(attest(pki()), "certificate", "no certificate authority of the trust root is valid",
               TrustedRoot::parse(r.dump()));
  // A notBefore in month 13, validly signed: no validity at all (OpenSSL's comparison says -2, not
  // "earlier").
  d = {};
  d.leaf_month_13 = true;
  expect_fails(attest(pki(), d, kFile, kSha, t), "certificate", "outside the certificate's validity");
  // A trust root dated 31 February is refused, not read as 3 March.
  r = pki().trusted_root();
  r["certificateAuthorities"][0]["validFor"]["start"] = "2025-02-31T00:00:00Z";
  try {
    TrustedRoot::parse(r.dump());
    ADD_FAILURE() << "31 February was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("names a day its month does not have"), std::string::npos) << e.what();
  }
  r["certificateAuthorities"][0]["validFor"]["start"] = "2024-02-29T00:00:00Z";  // a leap day is a day
  EXPECT_NO_THROW(TrustedRoot::parse(r.dump()));
}

TEST(ProvenancePki, LogDefects) {
  json good = attest(pki());
  auto& e0 = good["verification_material"]["transparency_entries"][0];
  // The SET binds the integrated time: five seconds later (still inside the certificate) fails there.
  json a = good;
  a["verification_material"]["transparency_entries"][0]["integratedTime"] = "1750000105";
  expect_fails(a, "signed entry timestamp", "does not verify");
  a = good;
  a["verification_material"]["transparency_entries"][0]["logIndex"] = "1004";
  expect_fails(a, "signed entry timestamp", "does not verify");
  // A log the trust root does not have, or not at that time.
  json r = pki().trusted_root();
  r["tlogs"][0]["publicKey"]["validFor"]["start"] = "2026-01-01T00:00:00Z";
  expect_fails(good, "log entry", "is not in the trust root at that time", TrustedRoot::parse(r.dump()));
  r = pki().trusted_root();
  r["tlogs"][0]["logId"]["keyId"] = base64_encode(std::string(32, 'x'));
  expect_fails(good, "log entry", "is not in the trust root", TrustedRoot::parse(r.dump()));
  // The CT log of the trust root is another key: the SCT's log is unknown.
  Key other = ec_key();
  r = pki().trusted_root();
  r["ctlogs"][0]["publicKey"]["rawBytes"] = base64_encode(spki(other.get()));
  r["ctlogs"][0]["logId"]["keyId"] = e0["logId"]["keyId"];  // the Rekor key's id: no SCT names it
  expect_fails(good, "sct", "no SCT is from a CT log of the trust root", TrustedRoot::parse(r.dump()));
  // Another attestation's body (a valid entry of the log for the same statement, signed by another key).
  a = good;
  json other_att = attest(pki());
  a["verification_material"]["transparency_entries"][0]["canonicalizedBody"] =
      other_att["verification_material"]["transparency_entries"][0]["canonicalizedBody"];
  expect_fails(a, "log entry", "the body's signature is not the envelope's");
  // A proof hash of the wrong length; a Rekor v2 kind.
  a = good;
  a["verification_material"]["transparency_entries"][0]["inclusionProof"]["hashes"][0] =
      base64_encode(std::string(31, 'h'));
  expect_fails(a, "inclusion proof", "not 32 bytes");
  a = good;
  a["verification_material"]["transparency_entries"][0]["kindVersion"] = {{"kind", "dsse"}, {"version", "0.0.2"}};
  expect_fails(a, "log entry", "unsupported log entry kind");
}

// Hostile JSON: wrong types, deep nesting, strings that look like numbers; each fails at its step
// with words, never an exception or a crash.
TEST(ProvenancePki, HostileJsonFailsAtItsStep) {
  json good = attest(pki());
  auto entry_with = [&](const char* key, json value) {
    json a = good;
    a["verification_material"]["transparency_entries"][0][key] = std::move(value);
    return a;
  };
  expect_fails(entry_with("integratedTime", "1750000100abc"), "log entry", "not a non-negative integer");
  expect_fails(entry_with("integratedTime", -5), "log entry", "not a non-negative integer");
  expect_fails(entry_with("integratedTime", json::array()), "log entry", "not a non-negative integer");
  expect_fails(entry_with("kindVersion", json::array({1, 2})), "log entry", "unsupported log entry kind");
  expect_fails(entry_with("inclusionProof", "x"), "inclusion proof", "no inclusion proof");
  expect_fails(entry_with("inclusionPromise", 7), "signed entry timestamp", "no 'signedEntryTimestamp'");
  auto statement = [&](const std::string& text) {
    json a = good;
    a["envelope"]["statement"] = base64_encode(text);
    return a;
  };
  expect_fails(statement(std::string(100000, '[') + std::string(100000, ']')), "statement", "not JSON");
  expect_fails(statement(R"({"_type": 5})"), "statement", "not an in-toto v1 statement");
  expect_fails(statement(R"({"_type": "https://in-toto.io/Statement/v1", "subject": [7]})"), "statement",
               "the subject is");
  expect_fails(statement(R"({"_type": "https://in-toto.io/Statement/v1", "subject": [{"name": ")" + kFile +
                         R"(", "digest": {"sha256": 12}}]})"),
               "statement", "the subject's sha256 is absent");
  // An unknown file hash (the file could not be read) never matches, even a subject without a digest.
  expect_fails(statement(R"({"_type": "https://in-toto.io/Statement/v1", "subject": [{"name": ")" + kFile + R"("}]})"),
               "statement", "sha256 is unknown", root(), kFile, "");
  json a = good;
  {
    auto& e = a["verification_material"]["transparency_entries"][0];
    std::string deep = std::string(5000, '{') + std::string(5000, '}');
    e["canonicalizedBody"] = base64_encode(deep);
  }
  expect_fails(a, "log entry", "not JSON");
  for (json bad : {json(nullptr), json(7), json::array(), json{{"version", "1"}}}) {
    auto v = verify_attestation(bad, root(), kFile, kSha);
    EXPECT_FALSE(v.verified);
    EXPECT_EQ(v.step, "statement");
  }
}

// Through `check`: several wheels on four threads, each with its test-PKI attestation, one
// published elsewhere, one beside a hostile provenance object; the run finishes and names each.
TEST(ProvenancePki, CheckHoldsEachWheelToItsPublisher) {
  testing::TempDir dir;
  std::ofstream(dir.file("root.json")) << pki().trusted_root().dump();
  auto wheel_with = [&](const std::string& name, const Defects& d) {
    testing::WheelBuilder w(name, "1.0");
    w.add(name + "/__init__.py", "");
    const std::string path = w.write(dir.path());
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Digest h("sha256");
    h.update(bytes.data(), bytes.size());
    const std::string file = std::filesystem::path(path).filename().string();
    return std::pair{path, attest(pki(), d, file, h.digest_hex())};
  };
  std::vector<std::string> paths;
  for (const char* name : {"alpha", "beta", "gamma"}) {
    auto [path, att] = wheel_with(name, {});
    std::ofstream(path + ".publish.attestation") << att.dump();
    paths.push_back(path);
  }
  Defects elsewhere;
  elsewhere.repository = "mallory/widget";
  elsewhere.workflow = "evil.yml";
  auto [moved, moved_att] = wheel_with("delta", elsewhere);
  // An Integrity API provenance object, its publisher (unsigned) naming an environment.
  std::ofstream(moved + ".provenance") << json{
      {"version", 1},
      {"attestation_bundles",
       {{{"publisher", {{"kind", "GitHub"}, {"environment", "PyPI"}}},
         {"attestations", {moved_att}}}}}}.dump();
  paths.push_back(moved);
  auto [hostile, hostile_att] = wheel_with("epsilon", {});
  std::ofstream(hostile + ".provenance") << json{
      {"attestation_bundles",
       {{{"publisher", {{"kind", 5}, {"environment", json::array()}}},
         {"attestations", {hostile_att}}}}}}.dump();
  std::ofstream(hostile + ".publish.attestation") << std::string(3000, '[') << std::string(3000, ']');
  paths.push_back(hostile);
  std::ofstream(dir.file("policy.json"))
      << R"({"extends": "default", "provenance": {"require": true, "publisher": {"kind": "github",
          "repository": "Acme/Widget", "workflow": "release.yml", "ref": "refs/tags/v*", "environment": "release"}}})";
  std::vector<std::string> args = {
      "check", "-j", "4", "-p", dir.file("policy.json"), "--trusted-root", dir.file("root.json"), "--format", "json"};
  args.insert(args.end(), paths.begin(), paths.end());
  auto r = testing::run_wheelcheck(args);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  json report = json::parse(r.out);
  std::map<std::string, std::string> findings;
  for (const auto& w : report["wheels"]) {
    std::string all;
    for (const auto& f : w["findings"])
      all += f["rule"].get<std::string>() + " " + f["message"].get<std::string>() + "\n";
    findings[std::filesystem::path(w["path"].get<std::string>()).filename().string()] = all;
    EXPECT_EQ(w["provenance"]["verified"], true) << w;
  }
  // The three good ones: verified, the repository compared without case; the environment named by
  // no provenance object is a warning, never an error.
  for (const char* name : {"alpha", "beta", "gamma"}) {
    const std::string& f = findings[std::string(name) + "-1.0-py3-none-any.whl"];
    EXPECT_EQ(f.find("WC911"), std::string::npos) << f;
    EXPECT_EQ(f.find("repository"), std::string::npos) << f;
    EXPECT_NE(f.find("WC912 the policy names the environment release"), std::string::npos) << f;
  }
  const std::string& d = findings["delta-1.0-py3-none-any.whl"];
  EXPECT_NE(d.find("repository mallory/widget, not Acme/Widget; workflow evil.yml, not release.yml"), std::string::npos)
      << d;
  EXPECT_NE(d.find("environment PyPI, not release (as the provenance object says: unsigned"), std::string::npos) << d;
  const std::string& e = findings["epsilon-1.0-py3-none-any.whl"];
  EXPECT_NE(e.find("WC911 epsilon-1.0-py3-none-any.whl.publish.attestation: not JSON"), std::string::npos) << e;
  EXPECT_EQ(e.find("provenance#1: does not verify"), std::string::npos) << e;  // its attestation is good
  // The same run without a trust root: nothing verified, the unreadable file listed, not failed.
  auto plain = testing::run_wheelcheck({"check", "--format", "json", hostile});
  EXPECT_EQ(plain.exit_code, 0) << plain.out;
  json p = json::parse(plain.out)["wheels"][0]["provenance"];
  EXPECT_EQ(p["verified"], false);
  ASSERT_TRUE(p.contains("unreadable")) << p;
  EXPECT_NE(p["unreadable"][0].get<std::string>().find("not JSON"), std::string::npos) << p;
}

}  // namespace
}  // namespace wc
