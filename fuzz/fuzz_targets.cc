#include "fuzz_targets.h"
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <algorithm>

#include "smoke/suites/suite.h"
#include "util/json_text.h"

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "binary/binary_facts.h"
#include "binary/fatbin.h"
#include "facts/analyze.h"
#include "facts/binary_capture.h"
#include "facts/sdist.h"
#include "install_diff.h"
#include "io/inflate.h"
#include "io/source.h"
#include "io/targets.h"
#include "io/zip_index.h"
#include "io/zip_stream.h"
#include "pipeline/check.h"
#include "pipeline/merge.h"
#include "policy/policy.h"
#include "provenance/sigstore.h"
#include "rules/release/release_set.h"
#include "rules/rules.h"
#include "smoke/suites/suite.h"
#include "util/digest.h"
#include "util/json_text.h"
#include "wheel/filename.h"
#include "wheel/metadata.h"
#include "wheel/sbom.h"
#include "wheel/version.h"

namespace wc::fuzz {
namespace {

std::string_view text(const uint8_t* d, size_t n) { return {reinterpret_cast<const char*>(d), n}; }

const Policy& default_policy() {
  static const Policy p = load_policy("default");
  return p;
}

// A wheel's facts with the given dist-info file text, so the rules run over fuzzed text.
WheelFacts facts_with(const char* file, std::string_view t) {
  WheelFacts f;
  f.path = "fuzz-1.0-py3-none-any.whl";
  f.filename = parse_wheel_filename(f.path);
  f.dist_info = "fuzz-1.0.dist-info";
  f.dist_info_dirs = {f.dist_info};
  EntryFacts e;
  e.name = f.dist_info + "/" + file;
  e.size = e.bytes_read = t.size();
  f.entries.push_back(e);
  f.reindex();
  if (std::string_view(file) == "METADATA")
    f.metadata = parse_header_file(t);
  else
    f.wheel_file = parse_header_file(t);
  return f;
}

}  // namespace

void zip(const uint8_t* d, size_t n) {
  MemorySource src("fuzz-1.0-py3-none-any.whl", std::vector<uint8_t>(d, d + n));
  AnalyzeOptions opt = analyze_options_for(default_policy());
  opt.limits.max_total_uncompressed_bytes = 64u << 20;  // keep one input's work bounded
  WheelFacts f = analyze_wheel(src, opt);
  check_wheel(f, default_policy());
}

void filename(const uint8_t* d, size_t n) {
  WheelFacts f;
  f.path = std::string(text(d, n));
  f.filename = parse_wheel_filename(f.path);
  for (const auto& t : f.filename.platform_tags) classify_platform(t);
  check_wheel(f, default_policy());
}

void metadata(const uint8_t* d, size_t n) { check_wheel(facts_with("METADATA", text(d, n)), default_policy()); }

void record(const uint8_t* d, size_t n) { parse_record(text(d, n)); }

void wheel(const uint8_t* d, size_t n) { check_wheel(facts_with("WHEEL", text(d, n)), default_policy()); }

void version(const uint8_t* d, size_t n) {
  std::string_view t = text(d, n);
  auto v = parse_version(t);
  if (v) (void)v->normalized();
  auto s = SpecifierSet::parse(t);
  if (s && v) (void)s->contains(*v);
}

void elf(const uint8_t* d, size_t n) {
  // The image, then the rules over it as an extension module of a manylinux wheel: the symbol
  // tables behind WC514 (hash tables, version records) as the link rules read them.
  WheelFacts f;
  f.path = "fuzz-1.0-cp312-cp312-manylinux_2_28_x86_64.whl";
  f.filename = parse_wheel_filename(f.path);
  BinaryFacts b;
  b.path = "fuzz/_ext.cpython-312-x86_64-linux-gnu.so";
  parse_elf_image(d, n, b);
  if (!b.format.empty()) f.binaries.push_back(std::move(b));
  check_wheel(f, default_policy());
}

void macho(const uint8_t* d, size_t n) {
  BinaryFacts b;
  parse_binary_image(d, n, b);
}

void pe(const uint8_t* d, size_t n) {
  BinaryFacts b;
  parse_binary_image(d, n, b);
}

void fatbin(const uint8_t* d, size_t n) {
  // The first byte chooses the chunk size, so splits at every position get exercised.
  if (n == 0) return;
  size_t chunk = 1 + d[0] % 97;
  FatbinScanner s;
  for (size_t i = 1; i < n; i += chunk) s.feed(d + i, std::min(chunk, n - i));
  std::vector<std::string> errors;
  select_fatbins(s, std::nullopt, errors);
  select_fatbins(s, ByteRange{0, n}, errors);
}

void policy(const uint8_t* d, size_t n) {
  std::string t(text(d, n));
  if (!validate_policy_text(t, "fuzz.json").empty()) return;
  // A valid document also goes through extends resolution and the typed parse.
  char path[] = "/tmp/wheelcheck-fuzz-policy-XXXXXX";
  int fd = ::mkstemp(path);
  if (fd < 0) return;
  (void)!::write(fd, t.data(), t.size());
  ::close(fd);
  try {
    load_policy(path);
  } catch (const PolicyError&) {
  }
  std::filesystem::remove(path);
}

void index(const uint8_t* d, size_t n) {
  try {
    parse_index_page(std::string(text(d, n)), "https://example.org/simple/pkg/");
  } catch (const std::runtime_error&) {  // malformed JSON is an error by contract
  }
}

namespace {

struct Outcome {
  std::string sha256;
  bool ok = false;
};

class Reference : public EntryVisitor {
 public:
  std::map<size_t, Outcome> out;
  bool begin(const ZipEntry& z) override {
    if (z.kind != EntryKind::file || z.uncompressed_size > (16u << 20)) return false;
    digest_.emplace("sha256");
    bytes_ = 0;
    return true;
  }
  bool data(const uint8_t* p, size_t n) override {
    digest_->update(p, n);
    bytes_ += n;
    return bytes_ <= (16u << 20);
  }
  void end(const ZipEntry& z, const std::string& error) override {
    if (!digest_) return;
    out[z.central_index] = {digest_->digest_b64(), error.empty() && bytes_ == z.uncompressed_size};
    digest_.reset();
  }

 private:
  std::optional<Digest> digest_;
  uint64_t bytes_ = 0;
};

}  // namespace

void inflate(const uint8_t* d, size_t n) {
  MemorySource src("fuzz.whl", std::vector<uint8_t>(d, d + n));
  ZipIndex idx;
  try {
    idx = read_zip_index(src);
  } catch (const IoError&) {
    return;
  }
  if (!idx.ok()) return;
  Reference ref;
  stream_entries(src, idx, ref);
  for (const auto& z : idx.entries) {
    if (z.kind != EntryKind::file || !fast_path_supports(z) || z.uncompressed_size > (16u << 20)) continue;
    Digest dg("sha256");
    uint64_t got = 0;
    EntryRead r;
    try {
      r = read_entry(src, z, [&](const uint8_t* p, size_t k, uint64_t) {
        dg.update(p, k);
        got += k;
        return true;
      });
    } catch (const IoError&) {
      continue;
    }
    if (got > z.uncompressed_size) __builtin_trap();  // more bytes than the entry declares
    auto it = ref.out.find(z.central_index);
    bool ok = r.error.empty();
    // Both intact: the same bytes. (libarchive may miss an entry the index lists, or stop early on
    // damage elsewhere; only a disagreement on intact data is a bug.)
    if (ok && it != ref.out.end() && it->second.ok && dg.digest_b64() != it->second.sha256) __builtin_trap();
  }
}

void capture(const uint8_t* d, size_t n) {
  if (n < 2) return;
  size_t chunk = 1 + (size_t(d[0]) * 997) % 65536;
  std::vector<uint8_t> bytes(d + 1, d + n);
  BinaryFacts whole;
  whole.path = "fuzz.so";
  parse_binary_image(bytes.data(), bytes.size(), whole);
  BinaryCapture c("fuzz.so", bytes.size(), 4096);
  for (size_t off = 0; off < bytes.size(); off += chunk)
    c.data(bytes.data() + off, std::min(chunk, bytes.size() - off));
  if (!c.finish()) {
    BinaryCapture again = c.second_pass();
    for (size_t off = 0; off < bytes.size(); off += chunk)
      again.data(bytes.data() + off, std::min(chunk, bytes.size() - off));
    for (int round = 0; round < 8 && !again.finish(); ++round)
      for (const auto& r : again.missing())
        if (r.off <= bytes.size() && r.len <= bytes.size() - r.off) again.add(r.off, bytes.data() + r.off, r.len);
    c = std::move(again);
  }
  if (!c.is_binary()) return;
  if (binary_to_json(c.take()) != binary_to_json(whole)) __builtin_trap();
}

void sbom(const uint8_t* d, size_t n) {
  WheelFacts f = facts_with("METADATA", "Metadata-Version: 2.4\nName: fuzz\nVersion: 1.0\n");
  // The first byte picks the file name (the format is told by content, but the name decides
  // whether a document is looked at as SPDX or CycloneDX first).
  const char* names[] = {"sboms/x.cdx.json", "sboms/x.spdx.json", "sboms/x.json"};
  if (n == 0) return;
  f.sboms.push_back(parse_sbom(f.dist_info + "/" + names[d[0] % 3], text(d + 1, n - 1)));
  check_wheel(f, default_policy());
}

void sdist(const uint8_t* d, size_t n) {
  MemorySource src("fuzz-1.0.tar.gz", std::vector<uint8_t>(d, d + n));
  Limits limits;
  limits.max_entries = 2000;
  limits.max_total_uncompressed_bytes = 64ull << 20;
  limits.max_metadata_bytes = 1 << 20;
  WheelFacts f;
  f.path = "fuzz-1.0.tar.gz";
  f.sdist = true;
  f.file_size = n;
  f.sdist_facts = read_sdist(src, limits);
  check_wheel(f, default_policy());
}

// A trust root of one made-up authority (a P-256 key, its self-signed certificate, the same key as
// the transparency and certificate-transparency log): fuzzed attestations are read and checked to
// the last step that does not need a real signature.
TrustedRoot made_up_root() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("fuzz"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509_sign(cert, key, EVP_sha256());
  auto der = [](auto write) {
    unsigned char* buf = nullptr;
    int len = write(&buf);
    std::string out(reinterpret_cast<char*>(buf), static_cast<size_t>(std::max(len, 0)));
    OPENSSL_free(buf);
    return out;
  };
  const std::string cert_der = der([&](unsigned char** b) { return i2d_X509(cert, b); });
  const std::string spki = der([&](unsigned char** b) { return i2d_PUBKEY(key, b); });
  X509_free(cert);
  EVP_PKEY_free(key);
  const std::string log =
      R"({"baseUrl": "https://log.fuzz", "hashAlgorithm": "SHA2_256", "publicKey": {"rawBytes": ")" +
      base64_encode(spki) +
      R"(", "keyDetails": "PKIX_ECDSA_P256_SHA_256", "validFor": {"start": "2020-01-01T00:00:00Z"}},
      "logId": {"keyId": ")" +
      base64_encode(sha256_bytes(spki)) + R"("}})";
  return TrustedRoot::parse(R"({"mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1", "tlogs": [)" +
                            log + R"(], "ctlogs": [)" + log +
                            R"(], "certificateAuthorities": [{"subject": {"commonName": "fuzz"},
      "uri": "https://ca.fuzz", "certChain": {"certificates": [{"rawBytes": ")" +
                            base64_encode(cert_der) + R"("}]}, "validFor": {"start": "2020-01-01T00:00:00Z"}}]})");
}

void attestation(const uint8_t* d, size_t n) {
  static const TrustedRoot root = made_up_root();
  ProvenanceFacts p;
  read_attestations(text(d, n), "fuzz.whl.provenance", p);
  for (auto& a : p.attestations)
    a.result = verify_attestation(a.attestation, root, "fuzz-1.0-py3-none-any.whl", std::string(64, '0'));
}

void trust_root(const uint8_t* d, size_t n) {
  try {
    TrustedRoot r = TrustedRoot::parse(text(d, n));
    (void)r.newest_key_start();
  } catch (const std::runtime_error&) {  // a malformed root is an error by contract
  }
}

void shard(const uint8_t* d, size_t n) {
  auto doc = parse_json(text(d, n));
  if (!doc) return;
  MergeState st;
  try {
    merge_report(st, "shard-1.json", *doc);
    // The same report twice is a wheel checked twice, unless it holds none.
    finish_merge(std::move(st), "default", "");
  } catch (const std::runtime_error&) {  // a named error: the expected outcome for a bad report
  }
}

void release_set(const uint8_t* d, size_t n) {
  auto doc = parse_json(text(d, n));
  if (!doc || !doc->is_array()) return;
  // The first half is the baseline, the rest tonight's release.
  std::vector<SetMember> before, now;
  for (size_t i = 0; i < doc->size(); ++i) {
    try {
      if (auto m = member_from_json((*doc)[i])) (i < doc->size() / 2 ? before : now).push_back(std::move(*m));
    } catch (const std::runtime_error&) {  // export names that do not decode: named by contract
    }
  }
  check_release_set(now, default_policy(), &before);
}

void cases(const uint8_t* d, size_t n) {
  auto doc = parse_json(text(d, n));
  if (!doc) return;
  for (auto& s : smoke::all_suites()) {
    try {
      s->add_cases(*doc);
    } catch (const std::runtime_error&) {
      // a load error naming the pointer: the expected outcome for a bad document
    }
  }
}

std::vector<uint8_t> installer_input(const std::string& filename, const std::vector<uint8_t>& zip) {
  std::vector<uint8_t> in(filename.begin(), filename.end());
  in.push_back('\n');
  in.insert(in.end(), zip.begin(), zip.end());
  return in;
}

void installer(const uint8_t* d, size_t n) {
  std::string filename = "fuzz-1.0-py3-none-any.whl";
  const uint8_t* nl = static_cast<const uint8_t*>(std::memchr(d, '\n', std::min<size_t>(n, 200)));
  if (nl) filename.assign(reinterpret_cast<const char*>(d), nl - d), n -= nl + 1 - d, d = nl + 1;
  std::vector<uint8_t> zip(d, d + n);
  InstallReading gate = wheelcheck_reading(zip, filename);
  if (!gate.refused.empty()) return;
  for (bool streaming : {false, true}) {
    std::string diff = reading_difference(gate, libarchive_reading(zip, streaming),
                                          streaming ? "libarchive (streaming)" : "libarchive (seekable)");
    if (diff.empty()) continue;
    std::fprintf(stderr, "wheelcheck passes %s, and another reader installs something else:\n%s", filename.c_str(),
                 diff.c_str());
    std::abort();
  }
}

const std::vector<NamedTarget>& all_targets() {
  static const std::vector<NamedTarget> t = {{"zip", zip},
                                             {"filename", filename},
                                             {"metadata", metadata},
                                             {"record", record},
                                             {"wheel", wheel},
                                             {"version", version},
                                             {"elf", elf},
                                             {"macho", macho},
                                             {"pe", pe},
                                             {"fatbin", fatbin},
                                             {"policy", policy},
                                             {"index", index},
                                             {"inflate", inflate},
                                             {"capture", capture},
                                             {"cases", cases},
                                             {"installer", installer},
                                             {"sbom", sbom},
                                             {"attestation", attestation},
                                             {"trust_root", trust_root},
                                             {"shard", shard},
                                             {"release_set", release_set},
                                             {"sdist", sdist}};
  return t;
}

}  // namespace wc::fuzz
