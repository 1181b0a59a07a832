#include "rules/supply_chain/provenance_rules.h"

#include "util/strings.h"

namespace wc {
namespace {

std::string describe(const Publisher& p, const CertificateIdentity& id) {
  std::string s = p.kind.empty() ? "identity " + id.san + " (issuer " + id.issuer + ")" : p.kind;
  if (!p.repository.empty()) s += " " + p.repository;
  if (!p.email.empty()) s += " " + p.email;
  std::string how = p.workflow;
  if (!p.ref.empty()) how += (how.empty() ? "" : " @ ") + p.ref;
  if (!how.empty()) s += " (" + how + ")";
  return s;
}

// What of the policy's publisher the certificate contradicts, one phrase per field.
std::vector<std::string> differences(const ProvenancePublisher& want, const AttestationFacts& a) {
  const Publisher& p = a.result.publisher;
  const CertificateIdentity& id = a.result.identity;
  std::vector<std::string> out;
  auto differ = [&](const char* field, const std::string& wanted, const std::string& have, bool fold_case) {
    if (wanted.empty()) return;
    bool same = fold_case ? to_lower(wanted) == to_lower(have) : wanted == have;
    if (!same) out.push_back(std::string(field) + " " + (have.empty() ? "(none)" : have) + ", not " + wanted);
  };
  const std::string kind = to_lower(want.kind);
  if (kind == "identity") {
    differ("identity", want.identity, id.san, false);
    differ("issuer", want.issuer, id.issuer, false);
    return out;
  }
  if (to_lower(p.kind) != kind) {
    out.push_back("publisher kind " + (p.kind.empty() ? std::string("(an identity)") : p.kind) + ", not " + want.kind);
    return out;
  }
  differ("repository", want.repository, p.repository, true);
  differ("workflow", want.workflow, p.workflow, false);
  differ("signer workflow", want.signer_workflow, p.signer_workflow, true);
  differ("email", want.email, p.email, true);
  differ("project_id", want.project_id, p.project_id, false);
  differ("pipeline_definition_id", want.pipeline_definition_id, p.pipeline_definition_id, false);
  if (!want.ref.empty() && !glob_match(want.ref, p.ref))
    out.push_back("ref " + (p.ref.empty() ? std::string("(none)") : p.ref) + ", not " + want.ref);
  if (!want.identity.empty()) differ("identity", want.identity, id.san, false);
  if (!want.issuer.empty()) differ("issuer", want.issuer, id.issuer, false);
  return out;
}

}  // namespace

void provenance_rules(const WheelFacts& f, FindingSink& s) {
  const ProvenanceFacts& pv = f.provenance;
  const ProvenancePolicy& pol = s.policy().provenance;
  // Each finding names its attestation file as its entry: the same defect in several files reads as one.
  // Without a trust root nothing is verified: a stray file beside the wheel is reported in the
  // provenance summary, not failed.
  if (pv.verifying)
    for (const auto& e : pv.errors) s.add("WC911", e, e.substr(0, e.find(':')));
  for (const auto& a : pv.attestations)
    if (!a.result.verified && pv.unverified_reason.empty())
      s.add("WC911", a.file + ": does not verify at the " + a.result.step + " step: " + a.result.error, a.file);
  if (pol.require && !pv.verified_any() && pv.attestations.empty() && pv.errors.empty()) {
    if (pv.looked)
      s.add("WC913", "no PEP 740 attestation (looked for " + join(pv.looked_in, ", ") + ")");
    else
      s.add("WC913",
            "no PEP 740 attestation read: attestations of a remote file are not fetched (check a "
            "downloaded copy with its .provenance beside it)");
  }
  if (!pol.publisher.any()) return;
  for (const auto& a : pv.attestations) {
    if (!a.result.verified) continue;
    auto diff = differences(pol.publisher, a);
    if (!diff.empty())
      s.add("WC912",
            a.file + ": published by " + describe(a.result.publisher, a.result.identity) + ": " + join(diff, "; "),
            a.file);
  }
  // The environment: only a provenance object's bundle names it, unsigned. GitHub compares
  // environment names without case.
  const std::string& env = pol.publisher.environment;
  if (env.empty() || !pv.verified_any()) return;
  bool said = false;
  for (const auto& a : pv.attestations) {
    if (!a.result.verified || a.unsigned_environment.empty()) continue;
    said = true;
    if (to_lower(a.unsigned_environment) != to_lower(env))
      s.add("WC912",
            a.file + ": environment " + a.unsigned_environment + ", not " + env +
                " (as the provenance object says: unsigned, the certificate does not carry it)",
            a.file);
  }
  if (!said)
    s.add("WC912",
          "the policy names the environment " + env +
              ", which only a provenance object's publisher (unsigned) carries; no verified attestation's says it",
          "", std::nullopt, Severity::warning);
}

nlohmann::json provenance_summary(const ProvenanceFacts& p) {
  if (!p.looked && p.attestations.empty()) return nullptr;
  nlohmann::json j = {{"verified", p.verified_any()}, {"attestations", p.attestations.size()}};
  if (!p.unverified_reason.empty()) j["not_verified"] = p.unverified_reason;
  if (!p.errors.empty()) j["unreadable"] = p.errors;
  if (p.digest_from_index) j["subject_digest"] = "the index's sha256 (the wheel's bytes were not hashed as a whole)";
  for (const auto& a : p.attestations) {
    if (!a.result.verified) continue;
    const Publisher& pub = a.result.publisher;
    j["publisher"] = pub.kind.empty() ? "identity" : pub.kind;
    if (!pub.repository.empty()) j["repository"] = pub.repository;
    if (!pub.workflow.empty()) j["workflow"] = pub.workflow;
    if (!pub.ref.empty()) j["ref"] = pub.ref;
    if (!pub.sha.empty()) j["sha"] = pub.sha;
    if (!pub.email.empty()) j["email"] = pub.email;
    if (pub.kind.empty()) j["identity"] = a.result.identity.san, j["issuer"] = a.result.identity.issuer;
    if (!a.unsigned_environment.empty()) j["environment_unsigned"] = a.unsigned_environment;
    j["log_index"] = a.result.log_index;
    j["integrated_time"] = a.result.integrated_time;
    break;
  }
  return j;
}

std::string provenance_summary_line(const nlohmann::json& j) {
  if (!j.is_object()) return "";
  const uint64_t n = j.value("attestations", uint64_t{0});
  if (n == 0) return "";  // looked for, none: the JSON says so, the text stays quiet
  // What could not be read is said beside an unverified count (a WC911 finding once verified).
  std::string unread;
  if (const auto u = j.find("unreadable"); u != j.end() && u->is_array() && !u->empty() && u->front().is_string())
    unread = "; " + u->front().get<std::string>() +
             (u->size() > 1 ? " (and " + std::to_string(u->size() - 1) + " more)" : "");
  if (j.contains("not_verified"))
    return "provenance: " + std::to_string(n) + " attestation(s), not verified (" + j.value("not_verified", "") + ")" +
           unread;
  if (!j.value("verified", false)) return "provenance: " + std::to_string(n) + " attestation(s), none verifies";
  std::string s = "provenance: verified" +
                  std::string(j.contains("subject_digest") ? " against the index's sha256" : "") + ", published by " +
                  j.value("publisher", "");
  if (j.contains("repository")) s += " " + j.value("repository", "");
  if (j.contains("email")) s += " " + j.value("email", "");
  if (j.contains("identity")) s += " " + j.value("identity", "");
  std::string how = j.value("workflow", "");
  if (j.contains("ref")) how += (how.empty() ? "" : " @ ") + j.value("ref", "");
  if (!how.empty()) s += " (" + how + ")";
  if (j.contains("environment_unsigned"))
    s += ", environment " + j.value("environment_unsigned", "") + " (unsigned: the provenance object's word)";
  return s;
}

}  // namespace wc
