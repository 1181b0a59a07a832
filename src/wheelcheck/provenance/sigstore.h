// PEP 740 attestations verified offline against a pinned Sigstore trust root: the in-toto
// statement, the DSSE signature, the Fulcio certificate chain, its embedded SCT, and the Rekor v1
// entry (body, RFC 6962 inclusion proof, signed checkpoint, signed entry timestamp). Every step is
// named when it fails. OpenSSL 3 libcrypto does the cryptography; nothing here reaches a network.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wc {

// A Sigstore trusted_root.json (media type application/vnd.dev.sigstore.trustedroot+json): the
// Fulcio CAs, the Rekor logs' keys and the CT logs' keys, each with its validity window.
class TrustedRoot {
 public:
  // Throws std::runtime_error naming what is malformed.
  static TrustedRoot parse(std::string_view text);
  TrustedRoot(TrustedRoot&&) noexcept;
  TrustedRoot& operator=(TrustedRoot&&) noexcept;
  ~TrustedRoot();

  size_t certificate_authorities() const;
  size_t transparency_logs() const;
  size_t ct_logs() const;
  // The newest start of any key's or CA's validity (seconds since the epoch): how fresh the pin is.
  int64_t newest_key_start() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  TrustedRoot();
  std::unique_ptr<Impl> impl_;
};

// Who the Fulcio certificate says signed: its OIDC issuer and identity (SAN), and the Sigstore
// extensions (OID 1.3.6.1.4.1.57264.1.x) that name the build.
struct CertificateIdentity {
  std::string issuer;                    // .1.8 (or .1.1 in older certificates)
  std::string san;                       // the URI or e-mail the certificate is issued to
  std::string source_repository;         // .1.12 "https://github.com/pytorch/vision"
  std::string source_repository_ref;     // .1.14 "refs/tags/v0.24.0"
  std::string source_repository_digest;  // .1.13 the commit
  std::string build_config_uri;          // .1.18 ".../.github/workflows/release.yml@refs/tags/v0.24.0"
  std::string build_signer_uri;          // .1.9 the workflow that ran (a reusable one for PyTorch's)
  std::string build_trigger;             // .1.20 "push", "release", ...
};

// A publisher as PEP 740 and PyPI's Trusted Publishing name it, read from the certificate.
struct Publisher {
  std::string kind;        // "GitHub", "GitLab", "Google", "CircleCI", or "" (another issuer: an identity)
  std::string repository;  // "owner/repo" (GitHub), "namespace/project" (GitLab), the VCS origin (CircleCI)
  std::string workflow;    // GitHub: the workflow file name; GitLab: the CI config path
  std::string ref, sha;
  std::string signer_workflow;  // GitHub: "owner/repo/.github/workflows/file.yml" of the workflow that ran
  std::string project_id, pipeline_definition_id;  // CircleCI
  std::string email;                               // Google: the service account
};
Publisher publisher_of(const CertificateIdentity& id);

// One attestation's verdict: verified, or the step that failed and why.
struct AttestationResult {
  bool verified = false;
  std::string step;  // the step that failed: "statement", "signature", "certificate", "sct",
                     // "log entry", "inclusion proof", "checkpoint", "signed entry timestamp"
  std::string error;
  std::string predicate_type;
  CertificateIdentity identity;
  Publisher publisher;
  int64_t log_index = -1, integrated_time = 0;
};

inline const char* const kPublishPredicate = "https://docs.pypi.org/attestations/publish/v1";
inline const char* const kSlsaPredicate = "https://slsa.dev/provenance/v1";

// Verifies one PEP 740 attestation object ({version, verification_material, envelope}) for the
// distribution `file_name` whose sha256 is `sha256_hex`. Never throws for a malformed attestation:
// that is a failed "statement" or "log entry" step.
AttestationResult verify_attestation(const nlohmann::json& attestation, const TrustedRoot& root,
                                     std::string_view file_name, std::string_view sha256_hex);

// RFC 6962 / RFC 9162 2.1.3.2: whether `proof` leads from `leaf_hash` at `index` to `root` in a
// tree of `size` leaves (hashes are raw 32-byte SHA-256 values).
bool merkle_inclusion_ok(uint64_t index, uint64_t size, const std::string& leaf_hash,
                         const std::vector<std::string>& proof, const std::string& root);

// Whether two distribution file names name the same distribution: wheels by project (normalised),
// version (normalised), build tag and tag set; other files by their name.
bool same_distribution(std::string_view a, std::string_view b);

}  // namespace wc
