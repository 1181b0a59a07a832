#include "provenance/sigstore.h"

#include <openssl/asn1.h>
#include <openssl/ct.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <ctime>
#include <set>
#include <stdexcept>

#include "util/digest.h"
#include "util/json_text.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/filename.h"
#include "wheel/version.h"

namespace wc {

using json = nlohmann::json;

namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
struct StoreFree {
  void operator()(X509_STORE* p) const { X509_STORE_free(p); }
};
struct StoreCtxFree {
  void operator()(X509_STORE_CTX* p) const { X509_STORE_CTX_free(p); }
};
struct StackFree {
  void operator()(STACK_OF(X509) * p) const { sk_X509_pop_free(p, X509_free); }
};
struct StackShallowFree {  // the stack only: the certificates belong to the trust root
  void operator()(STACK_OF(X509) * p) const { sk_X509_free(p); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using Cert = std::unique_ptr<X509, X509Free>;

std::string b64(const json& v, const char* what) {
  if (!v.is_string()) throw std::runtime_error(std::string(what) + " is not a string");
  std::string out;
  if (!base64_decode(v.get<std::string>(), &out)) throw std::runtime_error(std::string(what) + " is not base64");
  return out;
}

// A member that is a string, or "" (absent, another type, or `o` not an object): type confusion
// in untrusted JSON is a mismatch, never an exception from the JSON library.
std::string str(const json& o, const char* key) {
  if (!o.is_object()) return "";
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}
// A member that is an object, or an empty object.
const json& obj(const json& o, const char* key) {
  static const json empty = json::object();
  if (!o.is_object()) return empty;
  auto it = o.find(key);
  return it != o.end() && it->is_object() ? *it : empty;
}

// Untrusted JSON text (statements, log bodies): nesting bounded, never a throw from the parser.
json parse_untrusted(std::string_view text, const char* what) {
  JsonError err;
  auto j = parse_json(text, &err);
  if (!j) throw std::runtime_error(std::string(what) + " is not JSON: " + err.message);
  return std::move(*j);
}

const json& at(const json& o, const char* key, const char* where) {
  if (!o.is_object() || !o.contains(key)) throw std::runtime_error(std::string(where) + " has no '" + key + "'");
  return o[key];
}

// RFC 3339 UTC time ("2021-01-12T11:53:27Z", fractions allowed) as seconds since the epoch, read
// with the range-checked parsers: the trust root is a file the user pins, not code.
int64_t parse_time(const std::string& s) {
  auto field = [&](size_t at, size_t len, int lo, int hi) -> std::optional<int> {
    if (s.size() < at + len) return std::nullopt;
    auto v = parse_small(std::string_view(s).substr(at, len), hi);
    return v && *v >= lo ? v : std::nullopt;
  };
  auto y = field(0, 4, 1970, 9999), mo = field(5, 2, 1, 12), d = field(8, 2, 1, 31), h = field(11, 2, 0, 23),
       mi = field(14, 2, 0, 59), sec = field(17, 2, 0, 60);
  if (!y || !mo || !d || !h || !mi || !sec || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
      s[13] != ':' || s[16] != ':')
    throw std::runtime_error("'" + clip_for_display(s, 40) + "' is not an RFC 3339 time");
  // timegm() would normalise 31 February to 3 March: a date the calendar lacks is refused.
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0;
  if (*d > kDays[*mo - 1] + (*mo == 2 && leap ? 1 : 0))
    throw std::runtime_error("'" + clip_for_display(s, 40) + "' names a day its month does not have");
  std::tm tm{};
  tm.tm_year = *y - 1900, tm.tm_mon = *mo - 1, tm.tm_mday = *d, tm.tm_hour = *h, tm.tm_min = *mi, tm.tm_sec = *sec;
  return static_cast<int64_t>(timegm(&tm));
}

struct Window {
  int64_t start = 0, end = INT64_MAX;
  bool covers(int64_t t) const { return t >= start && t <= end; }
};

Window window(const json& valid_for) {
  Window w;
  if (!valid_for.is_object()) return w;
  if (valid_for.contains("start")) w.start = parse_time(str(valid_for, "start"));
  if (valid_for.contains("end")) w.end = parse_time(str(valid_for, "end"));
  return w;
}

// A key as the trust root gives it: DER SubjectPublicKeyInfo (PKIX_*), or a PKCS#1 RSAPublicKey
// (PKCS1_RSA_*, some CT logs).
Pkey public_key(const std::string& der, std::string_view details = "") {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
  if (details.starts_with("PKCS1_RSA")) {
    Pkey k(d2i_PublicKey(EVP_PKEY_RSA, nullptr, &p, static_cast<long>(der.size())));
    if (!k) throw std::runtime_error("a public key is not a DER PKCS#1 RSA key");
    return k;
  }
  Pkey k(d2i_PUBKEY(nullptr, &p, static_cast<long>(der.size())));
  if (!k) throw std::runtime_error("a public key is not DER SubjectPublicKeyInfo");
  return k;
}

Cert certificate(const std::string& der) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
  Cert c(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
  if (!c || p != reinterpret_cast<const unsigned char*>(der.data()) + der.size())
    throw std::runtime_error("not one DER certificate");
  return c;
}

// What an OpenSSL i2d_* call writes, as bytes ("" when it fails): `i2d(&buf)` allocates buf.
template <class I2d>
std::string der_bytes(I2d i2d) {
  unsigned char* buf = nullptr;
  int n = i2d(&buf);
  if (n <= 0) return "";
  std::string out(reinterpret_cast<char*>(buf), static_cast<size_t>(n));
  OPENSSL_free(buf);
  return out;
}
std::string der_of(X509* c) {
  return der_bytes([&](unsigned char** b) { return i2d_X509(c, b); });
}

// A signature over `data`: ECDSA (DER) with the hash Sigstore pairs with the curve (SHA-256 for
// P-256, SHA-384 for P-384, SHA-512 for P-521), RSA PKCS#1 v1.5 with SHA-256, plain Ed25519.
bool verify_signature(EVP_PKEY* key, std::string_view data, std::string_view sig) {
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  const int id = EVP_PKEY_get_id(key);
  const EVP_MD* md = EVP_sha256();
  if (id == EVP_PKEY_ED25519) md = nullptr;
  if (id == EVP_PKEY_EC && EVP_PKEY_get_bits(key) > 256)
    md = EVP_PKEY_get_bits(key) > 384 ? EVP_sha512() : EVP_sha384();
  if (EVP_DigestVerifyInit(ctx.get(), nullptr, md, nullptr, key) != 1) return false;
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                          reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
}

// DSSE's pre-authentication encoding.
std::string pae(std::string_view type, std::string_view body) {
  return "DSSEv1 " + std::to_string(type.size()) + " " + std::string(type) + " " + std::to_string(body.size()) + " " +
         std::string(body);
}

struct Log {
  std::string key_id;  // raw 32 bytes: SHA-256 of the key's DER
  Pkey key;
  Window valid;
  std::string base_url;
};

struct Authority {
  std::vector<Cert> chain;  // leaf-most first, the root last
  Window valid;
  std::string uri;
};

struct StepError : std::runtime_error {
  StepError(std::string s, const std::string& m) : std::runtime_error(m), step(std::move(s)) {}
  std::string step;
};

[[noreturn]] void fail(const char* step, const std::string& why) { throw StepError(step, why); }

std::string asn1_string(const ASN1_STRING* s) {
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), ASN1_STRING_length(s));
}

// A Sigstore extension's value: DER UTF8String (1.3.6.1.4.1.57264.1.8 and later) or raw bytes (.1.1-.1.6).
std::string extension_value(X509* c, const char* oid, bool der_string) {
  ASN1_OBJECT* obj = OBJ_txt2obj(oid, 1);
  if (!obj) return "";
  int i = X509_get_ext_by_OBJ(c, obj, -1);
  ASN1_OBJECT_free(obj);
  if (i < 0) return "";
  ASN1_OCTET_STRING* data = X509_EXTENSION_get_data(X509_get_ext(c, i));
  std::string raw = asn1_string(data);
  if (!der_string) return raw;
  const unsigned char* p = ASN1_STRING_get0_data(data);
  ASN1_UTF8STRING* s = d2i_ASN1_UTF8STRING(nullptr, &p, ASN1_STRING_length(data));
  if (!s) return raw;
  std::string out = asn1_string(s);
  ASN1_UTF8STRING_free(s);
  return out;
}

CertificateIdentity identity_of(X509* c) {
  CertificateIdentity id;
  id.issuer = extension_value(c, "1.3.6.1.4.1.57264.1.8", true);
  if (id.issuer.empty()) id.issuer = extension_value(c, "1.3.6.1.4.1.57264.1.1", false);
  id.build_signer_uri = extension_value(c, "1.3.6.1.4.1.57264.1.9", true);
  id.source_repository = extension_value(c, "1.3.6.1.4.1.57264.1.12", true);
  id.source_repository_digest = extension_value(c, "1.3.6.1.4.1.57264.1.13", true);
  id.source_repository_ref = extension_value(c, "1.3.6.1.4.1.57264.1.14", true);
  id.build_config_uri = extension_value(c, "1.3.6.1.4.1.57264.1.18", true);
  id.build_trigger = extension_value(c, "1.3.6.1.4.1.57264.1.20", true);
  if (auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(c, NID_subject_alt_name, nullptr, nullptr))) {
    for (int i = 0; i < sk_GENERAL_NAME_num(names) && id.san.empty(); ++i) {
      const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
      if (n->type == GEN_URI) id.san = asn1_string(n->d.uniformResourceIdentifier);
      if (n->type == GEN_EMAIL) id.san = asn1_string(n->d.rfc822Name);
    }
    GENERAL_NAMES_free(names);
  }
  return id;
}

// "https://github.com/o/r/.github/workflows/release.yml@refs/tags/v1" -> "release.yml" (GitHub),
// "https://gitlab.com/ns/p//ci/release.yml@refs/heads/main" -> "ci/release.yml" (GitLab).
std::string workflow_of(std::string_view uri, std::string_view marker) {
  auto at = uri.rfind('@');
  std::string_view s = uri.substr(0, at);
  auto m = s.rfind(marker);
  return m == std::string_view::npos ? "" : std::string(s.substr(m + marker.size()));
}

std::string without_prefix(std::string_view s, std::string_view p) {
  return s.starts_with(p) ? std::string(s.substr(p.size())) : std::string(s);
}

// RFC 6962 3.2: the SCT's signed data for a precertificate entry. The TBS is the leaf's without
// its SCT list extension (Fulcio signs the final certificate with the SCTs the log gave the
// precertificate, whose TBS lacked only that extension and the poison).
std::string precert_signed_data(const SCT* sct, X509* leaf, X509* issuer) {
  Cert copy(X509_dup(leaf));
  int i = X509_get_ext_by_NID(copy.get(), NID_ct_precert_scts, -1);
  if (i < 0) fail("sct", "the certificate embeds no SCT list");
  X509_EXTENSION_free(X509_delete_ext(copy.get(), i));
  const std::string tbs_bytes = der_bytes([&](unsigned char** b) { return i2d_re_X509_tbs(copy.get(), b); });
  if (tbs_bytes.empty()) fail("sct", "the certificate's TBS cannot be re-encoded");
  std::string out;
  out += '\0';  // sct_version v1
  out += '\0';  // signature_type certificate_timestamp
  uint64_t ts = SCT_get_timestamp(sct);
  for (int b = 7; b >= 0; --b) out += static_cast<char>((ts >> (8 * b)) & 0xff);
  out += '\0', out += '\1';  // entry_type precert_entry
  // The issuer's SubjectPublicKeyInfo exactly as its certificate encodes it.
  out += sha256_bytes(der_bytes([&](unsigned char** b) { return i2d_X509_PUBKEY(X509_get_X509_PUBKEY(issuer), b); }));
  out += static_cast<char>((tbs_bytes.size() >> 16) & 0xff);
  out += static_cast<char>((tbs_bytes.size() >> 8) & 0xff);
  out += static_cast<char>(tbs_bytes.size() & 0xff);
  out += tbs_bytes;
  unsigned char* ext = nullptr;
  size_t ext_len = SCT_get0_extensions(sct, &ext);
  out += static_cast<char>((ext_len >> 8) & 0xff);
  out += static_cast<char>(ext_len & 0xff);
  out.append(reinterpret_cast<char*>(ext), ext_len);
  return out;
}

}  // namespace

struct TrustedRoot::Impl {
  std::vector<Authority> cas;
  std::vector<Log> tlogs, ctlogs;
  int64_t newest = 0;
  const Log* find(const std::vector<Log>& logs, const std::string& key_id, int64_t t) const {
    for (const auto& l : logs)
      if (l.key_id == key_id && l.valid.covers(t)) return &l;
    return nullptr;
  }
};

TrustedRoot::TrustedRoot() : impl_(std::make_unique<Impl>()) {}
TrustedRoot::TrustedRoot(TrustedRoot&&) noexcept = default;
TrustedRoot& TrustedRoot::operator=(TrustedRoot&&) noexcept = default;
TrustedRoot::~TrustedRoot() = default;
size_t TrustedRoot::certificate_authorities() const { return impl_->cas.size(); }
size_t TrustedRoot::transparency_logs() const { return impl_->tlogs.size(); }
size_t TrustedRoot::ct_logs() const { return impl_->ctlogs.size(); }
int64_t TrustedRoot::newest_key_start() const { return impl_->newest; }

TrustedRoot TrustedRoot::parse(std::string_view text) {
  JsonError err;
  auto parsed = parse_json(text, &err);
  if (!parsed) throw std::runtime_error("not JSON: " + err.message);
  const json& doc = *parsed;
  if (!doc.is_object()) throw std::runtime_error("not a JSON object");
  TrustedRoot r;
  Impl& m = *r.impl_;
  auto logs = [&](const char* key, std::vector<Log>& out) {
    if (!doc.contains(key)) return;
    if (!doc[key].is_array()) throw std::runtime_error(std::string("'") + key + "' is not a list");
    for (size_t i = 0; i < doc[key].size(); ++i) {
      const json& l = doc[key][i];
      std::string where = std::string(key) + "[" + std::to_string(i) + "]";
      try {
        const json& pk = at(l, "publicKey", where.c_str());
        Log log;
        log.key = public_key(b64(at(pk, "rawBytes", "publicKey"), "publicKey.rawBytes"), str(pk, "keyDetails"));
        log.key_id = b64(at(at(l, "logId", where.c_str()), "keyId", "logId"), "logId.keyId");
        log.valid = window(obj(pk, "validFor"));
        log.base_url = str(l, "baseUrl");
        m.newest = std::max(m.newest, log.valid.start);
        out.push_back(std::move(log));
      } catch (const std::exception& e) {
        throw std::runtime_error(where + ": " + e.what());
      }
    }
  };
  logs("tlogs", m.tlogs);
  logs("ctlogs", m.ctlogs);
  if (doc.contains("certificateAuthorities")) {
    const json& cas = doc["certificateAuthorities"];
    if (!cas.is_array()) throw std::runtime_error("'certificateAuthorities' is not a list");
    for (size_t i = 0; i < cas.size(); ++i) {
      std::string where = "certificateAuthorities[" + std::to_string(i) + "]";
      try {
        Authority a;
        const json& certs = at(at(cas[i], "certChain", where.c_str()), "certificates", "certChain");
        if (!certs.is_array()) throw std::runtime_error("certChain.certificates is not a list");
        for (const auto& c : certs)
          a.chain.push_back(certificate(b64(at(c, "rawBytes", "certificate"), "certificate.rawBytes")));
        if (a.chain.empty()) throw std::runtime_error("an empty certificate chain");
        a.valid = window(obj(cas[i], "validFor"));
        a.uri = str(cas[i], "uri");
        m.newest = std::max(m.newest, a.valid.start);
        m.cas.push_back(std::move(a));
      } catch (const std::exception& e) {
        throw std::runtime_error(where + ": " + e.what());
      }
    }
  }
  if (m.cas.empty() || m.tlogs.empty())
    throw std::runtime_error("no certificate authority or no transparency log: not a Sigstore trusted root");
  return r;
}

Publisher publisher_of(const CertificateIdentity& id) {
  Publisher p;
  if (id.issuer == "https://token.actions.githubusercontent.com") {
    p.kind = "GitHub";
    p.repository = without_prefix(id.source_repository, "https://github.com/");
    p.workflow = workflow_of(id.build_config_uri, "/.github/workflows/");
    p.signer_workflow =
        without_prefix(id.build_signer_uri.substr(0, id.build_signer_uri.rfind('@')), "https://github.com/");
  } else if (id.issuer == "https://gitlab.com") {
    p.kind = "GitLab";
    p.repository = without_prefix(id.source_repository, "https://gitlab.com/");
    p.workflow = workflow_of(id.build_config_uri, "//");
  } else if (id.issuer == "https://accounts.google.com") {
    p.kind = "Google";
    p.email = id.san;
  } else if (id.issuer.starts_with("https://oidc.circleci.com")) {
    p.kind = "CircleCI";
    p.repository = id.source_repository;
    // SAN: https://circleci.com/api/v2/projects/<project>/pipeline-definitions/<definition>
    auto parts = split(id.san, '/');
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      if (parts[i] == "projects") p.project_id = std::string(parts[i + 1]);
      if (parts[i] == "pipeline-definitions") p.pipeline_definition_id = std::string(parts[i + 1]);
    }
  }
  p.ref = id.source_repository_ref;
  p.sha = id.source_repository_digest;
  return p;
}

bool merkle_inclusion_ok(uint64_t index, uint64_t size, const std::string& leaf_hash,
                         const std::vector<std::string>& proof, const std::string& root) {
  if (index >= size) return false;
  uint64_t fn = index, sn = size - 1;
  std::string r = leaf_hash;
  for (const auto& p : proof) {
    if (sn == 0) return false;
    if ((fn & 1) || fn == sn) {
      r = sha256_bytes(std::string(1, '\1') + p + r);
      if (!(fn & 1))
        while (!(fn & 1) && fn != 0) fn >>= 1, sn >>= 1;
    } else {
      r = sha256_bytes(std::string(1, '\1') + r + p);
    }
    fn >>= 1, sn >>= 1;
  }
  return sn == 0 && r == root;
}

bool same_distribution(std::string_view a, std::string_view b) {
  if (a == b) return true;
  // sdists, as packaging's parse_sdist_filename reads them: "{name}-{version}.tar.gz", the name
  // and version compared normalised.
  if (a.ends_with(".tar.gz") && b.ends_with(".tar.gz")) {
    auto parts = [](std::string_view s) {
      s.remove_suffix(7);
      auto dash = s.rfind('-');
      return dash == std::string_view::npos
                 ? std::pair<std::string, std::optional<Version>>{}
                 : std::pair{canonicalize_name(s.substr(0, dash)), parse_version(s.substr(dash + 1))};
    };
    auto [na, va] = parts(a);
    auto [nb, vb] = parts(b);
    return !na.empty() && na == nb && va && vb && compare(*va, *vb) == 0;
  }
  if (!a.ends_with(".whl") || !b.ends_with(".whl")) return false;
  WheelFilename x = parse_wheel_filename(a), y = parse_wheel_filename(b);
  if (!x.valid || !y.valid || x.canonical_name != y.canonical_name || !x.version || !y.version ||
      compare(*x.version, *y.version) != 0)
    return false;
  auto build = [](const WheelFilename& w) { return w.build ? w.build->number + w.build->suffix : std::string(); };
  auto tags = [](const WheelFilename& w) {
    std::set<std::string> t;
    for (const auto& p : w.python_tags)
      for (const auto& a : w.abi_tags)
        for (const auto& pl : w.platform_tags) t.insert(p + "-" + a + "-" + pl);
    return t;
  };
  return build(x) == build(y) && tags(x) == tags(y);
}

AttestationResult verify_attestation(const json& att, const TrustedRoot& root, std::string_view file_name,
                                     std::string_view sha256_hex) {
  AttestationResult out;
  const TrustedRoot::Impl& trust = root.impl();
  // The step under way: anything unexpected while it runs (a JSON type the schema does not allow,
  // an OpenSSL allocation failure) fails this step, not another.
  const char* step = "statement";
  try {
    // The parts, read before any step is judged (a missing part fails the step that needs it).
    std::string payload, signature, leaf_der;
    const json* entry = nullptr;
    try {
      if (!att.is_object()) throw std::runtime_error("not a JSON object");
      if (!att.contains("version") || !att["version"].is_number_integer() || att["version"].get<int64_t>() != 1)
        throw std::runtime_error("version is not 1");
      const json& vm = at(att, "verification_material", "the attestation");
      leaf_der = b64(at(vm, "certificate", "verification_material"), "the certificate");
      const json& entries = at(vm, "transparency_entries", "verification_material");
      if (!entries.is_array() || entries.empty() || !entries[0].is_object())
        throw std::runtime_error("no transparency entry");
      entry = &entries[0];
      const json& env = at(att, "envelope", "the attestation");
      payload = b64(at(env, "statement", "envelope"), "the statement");
      signature = b64(at(env, "signature", "envelope"), "the signature");
    } catch (const std::exception& e) {
      fail("statement", std::string("malformed attestation: ") + e.what());
    }

    // 1. The statement.
    if (sha256_hex.size() != 64 || !all_hex(sha256_hex))
      fail("statement", "the file's sha256 is unknown (it could not be read)");
    json st;
    try {
      st = parse_untrusted(payload, "the statement");
    } catch (const std::exception& x) {
      fail("statement", x.what());
    }
    if (str(st, "_type") != "https://in-toto.io/Statement/v1")
      fail("statement", "not an in-toto v1 statement (_type " + clip_for_display(str(st, "_type"), 60) + ")");
    if (!st.contains("subject") || !st["subject"].is_array() || st["subject"].size() != 1)
      fail("statement", "the statement must have exactly one subject");
    const json& subject = st["subject"][0];
    const std::string name = str(subject, "name");
    if (!same_distribution(name, file_name))
      fail("statement", "the subject is " + clip_for_display(name, 120) + ", not " + std::string(file_name));
    const std::string digest = to_lower(str(obj(subject, "digest"), "sha256"));
    if (digest.size() != 64 || !all_hex(digest) || digest != to_lower(std::string(sha256_hex)))
      fail("statement", "the subject's sha256 is " + clip_for_display(digest.empty() ? "absent" : digest, 64) +
                            ", the file's " + std::string(sha256_hex));
    out.predicate_type = str(st, "predicateType");
    if (out.predicate_type != kPublishPredicate && out.predicate_type != kSlsaPredicate)
      fail("statement", "unknown predicate type " + clip_for_display(out.predicate_type, 80));

    // 2. The DSSE signature with the leaf certificate's key.
    step = "signature";
    Cert leaf;
    try {
      leaf = certificate(leaf_der);
    } catch (const std::exception& e) {
      fail("certificate", e.what());
    }
    EVP_PKEY* leaf_key = X509_get0_pubkey(leaf.get());
    if (!leaf_key || !verify_signature(leaf_key, pae("application/vnd.in-toto+json", payload), signature))
      fail("signature", "the DSSE signature does not verify with the certificate's key");

    // The log entry's fixed fields (its time is the time everything else is judged at).
    step = "log entry";
    const json& e = *entry;
    const json& kv = obj(e, "kindVersion");
    if (str(kv, "kind") != "dsse" || str(kv, "version") != "0.0.1")
      fail("log entry", "unsupported log entry kind " + clip_for_display(str(kv, "kind"), 40) + " " +
                            clip_for_display(str(kv, "version"), 20) + " (Rekor v1 dsse 0.0.1 only)");
    // Rekor writes these as decimal strings (protobuf int64 in JSON) or as numbers.
    auto integer = [&](const json& o, const char* key) -> int64_t {
      if (!o.is_object() || !o.contains(key)) fail(step, std::string("no ") + key);
      const json& v = o[key];
      if (v.is_number_integer() && v.get<int64_t>() >= 0) return v.get<int64_t>();
      if (v.is_string())
        if (auto n = parse_decimal(v.get<std::string>(), static_cast<uint64_t>(INT64_MAX)))
          return static_cast<int64_t>(*n);
      fail(step, std::string(key) + " is not a non-negative integer");
    };
    out.integrated_time = integer(e, "integratedTime");
    out.log_index = integer(e, "logIndex");
    const int64_t t = out.integrated_time;

    // 3. The certificate chain to a Fulcio CA valid at the integrated time; its usage.
    step = "certificate";
    // RFC 5280 4.1.2.5: both ends of the validity are in it (X509_cmp_time counts notAfter itself
    // as expired, so the chain's times are judged here, not by X509_verify_cert).
    const time_t tt = static_cast<time_t>(t);
    // ASN1_TIME_cmp_time_t returns -2 for a time it cannot read (month 13): that is no validity at
    // all, never "earlier". ASN1_TIME_check refuses such times first.
    auto valid_at = [&](X509* c) {
      const ASN1_TIME *from = X509_get0_notBefore(c), *to = X509_get0_notAfter(c);
      if (!from || !to || ASN1_TIME_check(from) != 1 || ASN1_TIME_check(to) != 1) return false;
      const int a = ASN1_TIME_cmp_time_t(from, tt), b = ASN1_TIME_cmp_time_t(to, tt);
      return a != -2 && b != -2 && a <= 0 && b >= 0;
    };
    if (!valid_at(leaf.get()))
      fail("certificate", "the integrated time " + std::to_string(t) + " is outside the certificate's validity");
    X509* issuer = nullptr;
    std::string chain_error = "no certificate authority of the trust root is valid at the integrated time";
    std::unique_ptr<STACK_OF(X509), StackFree> verified;
    for (const auto& ca : trust.cas) {
      if (!ca.valid.covers(t)) continue;
      std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
      X509_STORE_add_cert(store.get(), ca.chain.back().get());
      std::unique_ptr<STACK_OF(X509), StackShallowFree> untrusted(sk_X509_new_null());
      for (size_t i = 0; i + 1 < ca.chain.size(); ++i) sk_X509_push(untrusted.get(), ca.chain[i].get());
      std::unique_ptr<X509_STORE_CTX, StoreCtxFree> ctx(X509_STORE_CTX_new());
      X509_STORE_CTX_init(ctx.get(), store.get(), leaf.get(), untrusted.get());
      X509_STORE_CTX_set_flags(ctx.get(), X509_V_FLAG_NO_CHECK_TIME);
      if (X509_verify_cert(ctx.get()) == 1)
        verified.reset(X509_STORE_CTX_get1_chain(ctx.get()));
      else
        chain_error = std::string("the chain does not verify: ") +
                      X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get()));
      if (verified) break;
    }
    if (!verified || sk_X509_num(verified.get()) < 2) fail("certificate", chain_error);
    for (int i = 1; i < sk_X509_num(verified.get()); ++i)
      if (!valid_at(sk_X509_value(verified.get(), i)))
        fail("certificate", "a CA certificate of the chain is not valid at the integrated time " + std::to_string(t));
    issuer = sk_X509_value(verified.get(), 1);
    // OpenSSL reports every usage as allowed when the extension is absent: require both extensions.
    const uint32_t flags = X509_get_extension_flags(leaf.get());
    if (!(flags & EXFLAG_KUSAGE) || !(X509_get_key_usage(leaf.get()) & KU_DIGITAL_SIGNATURE))
      fail("certificate", "the certificate's key usage lacks digitalSignature");
    if (!(flags & EXFLAG_XKUSAGE) || !(X509_get_extended_key_usage(leaf.get()) & XKU_CODE_SIGN))
      fail("certificate", "the certificate's extended key usage lacks codeSigning");
    if ((flags & EXFLAG_CA) || X509_check_ca(leaf.get()) != 0)
      fail("certificate", "the signing certificate is a CA certificate");

    // 4. The embedded SCT, from a CT log of the trust root.
    step = "sct";
    {
      std::unique_ptr<STACK_OF(SCT), decltype(&SCT_LIST_free)> scts(
          static_cast<STACK_OF(SCT)*>(X509_get_ext_d2i(leaf.get(), NID_ct_precert_scts, nullptr, nullptr)),
          &SCT_LIST_free);
      if (!scts || sk_SCT_num(scts.get()) == 0) fail("sct", "the certificate embeds no SCT");
      bool good = false;
      std::string why = "no SCT is from a CT log of the trust root";
      for (int i = 0; i < sk_SCT_num(scts.get()) && !good; ++i) {
        const SCT* sct = sk_SCT_value(scts.get(), i);
        unsigned char* id = nullptr;
        size_t id_len = SCT_get0_log_id(sct, &id);
        const uint64_t sct_time = SCT_get_timestamp(sct) / 1000;
        const Log* log =
            trust.find(trust.ctlogs, std::string(reinterpret_cast<char*>(id), id_len), static_cast<int64_t>(sct_time));
        if (!log) continue;
        unsigned char* sig = nullptr;
        size_t sig_len = SCT_get0_signature(sct, &sig);
        try {
          good = verify_signature(log->key.get(), precert_signed_data(sct, leaf.get(), issuer),
                                  std::string_view(reinterpret_cast<char*>(sig), sig_len));
          if (!good) why = "the SCT's signature does not verify (issuer key hash or certificate altered)";
        } catch (const StepError& se) {
          why = se.what();
        }
      }
      if (!good) fail("sct", why);
    }

    // 5. The transparency log entry.
    step = "log entry";
    std::string key_id;
    try {
      key_id = b64(at(at(e, "logId", "the entry"), "keyId", "logId"), "logId.keyId");
    } catch (const std::exception& x) {
      fail("log entry", x.what());
    }
    const Log* log = trust.find(trust.tlogs, key_id, t);
    if (!log)
      fail("log entry", "the log " + hex_encode(key_id).substr(0, 16) + " is not in the trust root at that time");
    std::string body_text;
    json body;
    try {
      body_text = b64(at(e, "canonicalizedBody", "the entry"), "canonicalizedBody");
      body = parse_untrusted(body_text, "the body");
    } catch (const std::exception& x) {
      fail("log entry", std::string("the body: ") + x.what());
    }
    if (str(body, "kind") != "dsse" || str(body, "apiVersion") != "0.0.1")
      fail("log entry", "the body is not a dsse 0.0.1 entry");
    const json& spec = obj(body, "spec");
    const json& ph = obj(spec, "payloadHash");
    if (str(ph, "algorithm") != "sha256" || str(ph, "value") != hex_encode(sha256_bytes(payload)))
      fail("log entry", "the body's payload hash is not the statement's");
    const json* sigs = spec.contains("signatures") ? &spec["signatures"] : nullptr;
    if (!sigs || !sigs->is_array() || sigs->size() != 1) fail("log entry", "the body must carry exactly one signature");
    std::string logged_sig, verifier_pem;
    try {
      logged_sig = b64(at((*sigs)[0], "signature", "the body's signature"), "signature");
      verifier_pem = b64(at((*sigs)[0], "verifier", "the body's signature"), "verifier");
    } catch (const std::exception& x) {
      fail("log entry", x.what());
    }
    if (logged_sig != signature) fail("log entry", "the body's signature is not the envelope's");
    {
      std::unique_ptr<BIO, decltype(&BIO_free)> bio(
          BIO_new_mem_buf(verifier_pem.data(), static_cast<int>(verifier_pem.size())), &BIO_free);
      Cert v(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
      if (!v || der_of(v.get()) != leaf_der) fail("log entry", "the body's verifier is not the certificate");
    }

    // The inclusion proof against the checkpoint the log signed.
    step = "inclusion proof";
    const json& proof = obj(e, "inclusionProof");
    if (proof.empty()) fail("inclusion proof", "the entry has no inclusion proof");
    const int64_t proof_index = integer(proof, "logIndex"), tree_size = integer(proof, "treeSize");
    std::string root_hash;
    std::vector<std::string> hashes;
    try {
      root_hash = b64(at(proof, "rootHash", "inclusionProof"), "rootHash");
      const json& list = at(proof, "hashes", "inclusionProof");
      if (!list.is_array() || list.size() > 64) throw std::runtime_error("hashes is not a list of at most 64");
      for (const auto& h : list) hashes.push_back(b64(h, "a proof hash"));
    } catch (const std::exception& x) {
      fail("inclusion proof", x.what());
    }
    if (root_hash.size() != 32 || std::any_of(hashes.begin(), hashes.end(), [](auto& h) { return h.size() != 32; }))
      fail("inclusion proof", "a hash of the proof is not 32 bytes");
    if (tree_size <= 0 || !merkle_inclusion_ok(static_cast<uint64_t>(proof_index), static_cast<uint64_t>(tree_size),
                                               sha256_bytes(std::string(1, '\0') + body_text), hashes, root_hash))
      fail("inclusion proof", "the proof does not lead from the entry to the root hash");
    step = "checkpoint";
    const std::string note = str(obj(proof, "checkpoint"), "envelope");
    auto blank = note.find("\n\n");
    if (blank == std::string::npos) fail("checkpoint", "the checkpoint is not a signed note");
    std::string text = note.substr(0, blank + 1);
    auto lines = split(text, '\n');
    if (lines.size() < 3 || lines[1] != std::to_string(tree_size) || lines[2] != base64_encode(root_hash))
      fail("checkpoint", "the checkpoint's tree size or root hash is not the proof's");
    bool signed_ok = false;
    for (auto line : split(std::string_view(note).substr(blank + 2), '\n')) {
      if (!line.starts_with("\xE2\x80\x94 ")) continue;  // "— name base64(keyhint || signature)"
      auto space = line.rfind(' ');
      std::string raw;
      if (!base64_decode(line.substr(space + 1), &raw) || raw.size() < 5) continue;
      if (raw.compare(0, 4, log->key_id, 0, 4) != 0) continue;
      signed_ok = verify_signature(log->key.get(), text, std::string_view(raw).substr(4));
      if (signed_ok) break;
    }
    if (!signed_ok) fail("checkpoint", "no signature of the log's key verifies the checkpoint");

    // The signed entry timestamp over {body, integratedTime, logID, logIndex}, canonical JSON.
    step = "signed entry timestamp";
    std::string set;
    try {
      set = b64(at(at(e, "inclusionPromise", "the entry"), "signedEntryTimestamp", "inclusionPromise"),
                "signedEntryTimestamp");
    } catch (const std::exception& x) {
      fail("signed entry timestamp", x.what());
    }
    json promise = {{"body", base64_encode(body_text)},
                    {"integratedTime", out.integrated_time},
                    {"logID", hex_encode(key_id)},
                    {"logIndex", out.log_index}};
    if (!verify_signature(log->key.get(), promise.dump(), set))
      fail("signed entry timestamp", "the log's signature over the entry does not verify");

    out.identity = identity_of(leaf.get());
    out.publisher = publisher_of(out.identity);
    out.verified = true;
  } catch (const StepError& se) {
    out.step = se.step;
    out.error = se.what();
  } catch (const std::exception& x) {
    out.step = step;
    out.error = std::string("malformed: ") + x.what();
  }
  return out;
}

}  // namespace wc
