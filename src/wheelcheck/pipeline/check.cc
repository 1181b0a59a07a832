#include "pipeline/check.h"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include "binary/binary_facts.h"
#include "binary/dynamic_symbols.h"
#include "facts/sdist.h"
#include "facts/spill.h"
#include "io/source.h"
#include "io/targets.h"
#include "provenance/sigstore.h"
#include "rules/loader/install_set.h"
#include "rules/rules.h"
#include "rules/supply_chain/provenance_rules.h"
#include "rules/supply_chain/sbom_rules.h"
#include "util/budget.h"
#include "util/digest.h"
#include "util/json_text.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/version.h"

namespace wc {

namespace fs = std::filesystem;

unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

namespace {

// Jobs go to wheels first; what is left over reads entries within a wheel (one torch wheel on two
// cores: its two large libraries inflate at once) and settles it (run_check).
unsigned wheels_at_once(unsigned jobs, size_t wheels) {
  return static_cast<unsigned>(
      std::min<size_t>(std::max(1u, jobs ? jobs : default_jobs()), std::max<size_t>(1, wheels)));
}
unsigned threads_per_wheel(unsigned jobs, size_t wheels) {
  return std::max(1u, (jobs ? jobs : default_jobs()) / wheels_at_once(jobs, wheels));
}

// The facts of a target that could not be analysed: its name, and why. An index page has no wheel
// file name to judge.
WheelFacts unreadable_target(const TargetRef& t, const std::string& why) {
  WheelFacts f;
  f.path = display_url(t.location);
  f.index_page = !t.error.empty();
  if (!f.index_page) f.filename = parse_wheel_filename(target_basename(t.location));
  f.unreadable.push_back({why, "", 0});
  return f;
}

// A source distribution: its archive streamed once (names, types, sizes, PKG-INFO; nothing
// extracted); its provenance is gathered with every other file's.
WheelFacts sdist_target(const TargetRef& t, const Limits& limits) {
  WheelFacts f;
  f.path = display_url(t.location);
  f.sdist = true;
  std::unique_ptr<Source> src;
  try {
    src = open_source(t.location, ReadPlan::whole);  // a URL streams once, hashed as it arrives
  } catch (const IoError& e) {
    f.unreadable.push_back({std::string("cannot be read: ") + e.what(), "", 0});
    return f;
  }
  f.file_size = src->size();
  f.sdist_facts = read_sdist(*src, limits);
  src->settle();
  f.content_sha256 = f.sdist_facts.sha256;
  f.bytes_read = is_url(t.location) ? src->bytes_read() : f.file_size;
  f.http_requests = src->requests();
  f.http_connections = src->connections();
  return f;
}

}  // namespace

std::vector<WheelFacts> analyze_all(const std::vector<TargetRef>& targets, const AnalyzeOptions& opt, unsigned jobs,
                                    const std::function<void(size_t, size_t, const std::string&)>& progress,
                                    const std::function<void(const std::string&)>& started,
                                    const std::function<void(size_t, WheelFacts&)>& settle) {
  std::vector<WheelFacts> facts(targets.size());
  unsigned n = wheels_at_once(jobs, targets.size());
  AnalyzeOptions per_wheel = opt;
  per_wheel.threads = threads_per_wheel(jobs, targets.size());
  // A wheel's whole-file digest is read only against what its index says (WC407, PEP 740
  // provenance from the index): a URL given directly streams unhashed.
  AnalyzeOptions unhashed = per_wheel;
  unhashed.hash_body = false;
  std::atomic<size_t> next{0}, done{0};
  std::mutex mu;
  auto worker = [&] {
    for (size_t i; (i = next++) < targets.size();) {
      const TargetRef& t = targets[i];
      if (started) {
        std::lock_guard<std::mutex> lock(mu);
        started(display_url(t.location));
      }
      try {
        if (!t.error.empty())
          facts[i] = unreadable_target(t, t.error);
        else if (t.sdist)
          facts[i] = sdist_target(t, opt.limits);
        else
          facts[i] = opt.depth == Depth::metadata && !t.metadata_url.empty()
                         ? analyze_index_metadata(t, per_wheel)
                         : analyze_target(t.location, t.from_index ? per_wheel : unhashed);
        if (t.from_index && t.sha256.size() == 64) facts[i].index_sha256 = t.sha256;
      } catch (const std::bad_alloc&) {
        facts[i] =
            unreadable_target(t, "analysis stopped: out of memory (std::bad_alloc); the rest of the run went on");
      } catch (const std::exception& e) {
        facts[i] = unreadable_target(t, std::string("analysis stopped by an internal error: ") + e.what());
      } catch (...) {
        facts[i] = unreadable_target(t, "analysis stopped by an internal error: unknown exception");
      }
      if (settle) settle(i, facts[i]);
      size_t d = ++done;
      if (progress) {
        std::lock_guard<std::mutex> lock(mu);
        progress(d, targets.size(), display_url(t.location));
      }
    }
  };
  {
    std::deque<GuardedThread> pool;  // a worker's exception is rethrown here, never std::terminate
    for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    for (auto& t : pool)
      if (t.error()) std::rethrow_exception(t.error());
  }
  return facts;
}

std::vector<WheelFacts> analyze_all(const std::vector<std::string>& paths, const AnalyzeOptions& opt, unsigned jobs,
                                    const std::function<void(size_t, size_t, const std::string&)>& progress) {
  std::vector<TargetRef> refs;
  for (const auto& p : paths) refs.push_back({p, "", "", "", ""});
  return analyze_all(refs, opt, jobs, progress);
}

std::vector<SetMember> read_baseline(const std::string& path) {
  nlohmann::json j = read_json_file(path);  // throws naming the file
  if (!j.is_object() || j.value("schema", "") != "wheelcheck-report/1" || !j.contains("wheels"))
    throw std::runtime_error(path + ": not a wheelcheck JSON report (schema wheelcheck-report/1 with wheels)");
  std::vector<SetMember> out;
  try {
    for (const auto& w : j["wheels"])
      if (w.is_object() && w.contains("release"))
        if (auto m = member_from_json(w["release"])) out.push_back(std::move(*m));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return out;
}

void judge_set(RunReport& report, const std::vector<SetMember>& members, const Policy& policy,
               const std::string& baseline, const std::vector<VariantIndexFile>& indexes) {
  if (!release_rules_apply(policy) && baseline.empty() && indexes.empty()) return;
  std::vector<SetMember> before;
  if (!baseline.empty()) before = read_baseline(baseline);
  SetVerdict v = check_release_set(members, policy, baseline.empty() ? nullptr : &before, indexes);
  // Without a declared release or a baseline, the set section appears only when the run held a
  // group of wheels of one project and version to compare, or a variants index file.
  if (!policy.release.defined && baseline.empty() && v.members == 0 && indexes.empty() && v.findings.empty()) return;
  SetSection s;
  s.findings = std::move(v.findings);
  s.waived = std::move(v.waived);
  s.members = v.members;
  s.baseline = baseline;
  s.baseline_matched = v.baseline_matched;
  report.set = std::move(s);
}

namespace {

// --resolve-deps: for each wheel from `from` on, the dependencies the providers table says install
// libraries it may need and that the set lacks (for its platform), found on `index`: the newest
// wheel of the project that installs beside the dependent wheel and satisfies its requirement. One
// index page per project; what cannot be found is a note, never a failure of the run.
// project -> its wheels, each with its file name parsed once
using IndexPages = std::map<std::string, std::optional<std::vector<std::pair<TargetRef, WheelFilename>>>>;

// `roots[i]`: the checked wheels that facts[i] was fetched for (itself for a checked wheel). A
// dependency of a platform-independent meta-package must still install beside each of them.
std::vector<std::pair<TargetRef, size_t>> dependency_wheels(const std::vector<WheelFacts>& facts,
                                                            const std::vector<std::vector<size_t>>& roots, size_t from,
                                                            const Policy& policy, const std::string& index,
                                                            IndexPages& pages, std::vector<std::string>& notes) {
  std::string base = index;
  while (!base.empty() && base.back() == '/') base.pop_back();
  std::vector<std::pair<TargetRef, size_t>> out;
  std::set<std::string> chosen;
  for (size_t i = from; i < facts.size(); ++i) {
    const WheelFacts& f = facts[i];
    if (!f.filename.valid) continue;
    for (size_t root : roots[i]) {
      const WheelFacts& r = facts[root];
      for (const auto& dep : declared_providers(f, policy)) {
        bool in_set = std::any_of(facts.begin(), facts.end(), [&](const WheelFacts& w) {
          return w.filename.valid && w.filename.canonical_name == dep.name && installable_together(f, w) &&
                 installable_together(r, w);
        });
        if (in_set) continue;
        auto& page = pages[dep.name];
        if (!page) {
          try {
            page.emplace();
            for (auto& t : expand_target_refs({base + "/" + dep.name + "/"})) {
              if (!t.error.empty()) throw std::runtime_error(t.error);
              WheelFilename name = parse_wheel_filename(target_basename(t.location));
              page->emplace_back(std::move(t), std::move(name));
            }
          } catch (const std::exception& e) {
            notes.push_back(dep.name + ": " + e.what());
            page.emplace();
          }
        }
        auto spec = SpecifierSet::parse(dep.specifier);
        const bool pre_ok = spec && spec->mentions_prerelease();  // as pip: pre-releases only when named
        const TargetRef* best = nullptr;
        std::optional<Version> best_version;
        for (const auto& [t, name] : *page) {
          if (!installable_together(f.filename, name) || !installable_together(r.filename, name)) continue;
          const auto& v = name.version;
          if (!v || (spec && !spec->contains(*v)) || ((v->pre || v->dev) && !pre_ok)) continue;
          if (!best || compare(*v, *best_version) > 0) best = &t, best_version = v;
        }
        if (!best) {
          notes.push_back(dep.name + ": no wheel on " + base + " installs beside " + target_basename(r.path) +
                          " and satisfies '" + dep.requirement + "'");
          continue;
        }
        // One wheel per project for each checked wheel (the first requirement met wins, as one
        // environment holds one version).
        if (chosen.insert(std::to_string(root) + " " + dep.name).second) out.push_back({*best, root});
      }
    }
  }
  return out;
}

// The rest of a wheel's judgement once every wheel of the run is read: the rules of its install
// set; for an sdist, its agreement with the wheels of its version (PEP 643).
WheelVerdict judge_rest(AloneVerdict alone, const WheelFacts& f, const std::vector<WheelFacts>& all,
                        const Policy& policy, InstallSetIndex* index) {
  if (f.sdist) {
    WheelVerdict v = judge_in_set(std::move(alone), f, policy, InstallSet{});
    FindingSink s(policy);
    sdist_agreement(f, all, s);
    for (auto& x : s.take()) v.findings.push_back(std::move(x));
    for (auto& x : s.take_waived()) v.waived.push_back(std::move(x));
    return v;
  }
  return judge_in_set(std::move(alone), f, policy, install_set_for(f, all, index, policy.cuda.import_loaded));
}

// A judgement that stopped: the error is the verdict.
WheelVerdict internal_error(const Policy& policy, const std::string& what) {
  FindingSink s(policy);
  s.add("WC404", "checking stopped by an internal error: " + what);
  return {s.take(), s.take_waived()};
}

}  // namespace

WheelVerdict judge_wheel(const WheelFacts& f, const std::vector<WheelFacts>& all, const Policy& policy,
                         InstallSetIndex* index) {
  try {
    return judge_rest(judge_alone(f, policy), f, all, policy, index);
  } catch (const std::exception& e) {
    return internal_error(policy, e.what());
  }
}

// One PEP 825 index file: its text (a file, or a URL an index page links), and what is wrong with
// it or with its link's hash fragment.
VariantIndexFile read_variant_index(const TargetRef& t, const Limits& limits) {
  VariantIndexFile f{t.location, "", {}};
  if (!t.fragment.empty()) {
    auto eq = t.fragment.find('=');
    std::string algo = eq == std::string::npos ? "" : to_lower(t.fragment.substr(0, eq));
    std::string hex = eq == std::string::npos ? "" : t.fragment.substr(eq + 1);
    size_t want = algo == "sha256" ? 64 : algo == "sha384" ? 96 : algo == "sha512" ? 128 : 0;
    if (!want || hex.size() != want || !all_hex(hex))
      f.problems.push_back("the index page links it with a malformed hash fragment '#" +
                           clip_for_display(t.fragment, 80) + "' (expected sha256= and 64 hex digits)");
  }
  try {
    if (is_url(t.location)) {
      f.text = http_get(t.location, "application/json, */*;q=0.5", limits.max_metadata_bytes);
    } else {
      auto size = fs::file_size(t.location);
      if (size > limits.max_metadata_bytes)
        throw std::runtime_error(std::to_string(size) + " bytes, over the metadata size limit");
      std::ifstream in(t.location, std::ios::binary);
      f.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  } catch (const std::exception& e) {
    f.problems.push_back(std::string("could not be read: ") + e.what());
    return f;
  }
  if (t.sha256.size() == 64) {
    Digest d("sha256");
    d.update(f.text.data(), f.text.size());
    std::string got = d.digest_hex();
    if (got != t.sha256) f.problems.push_back("its sha256 is " + got + ", but the index page says " + t.sha256);
  }
  return f;
}

namespace {

// A file read whole, up to `max_bytes` (nullopt and `why` when it cannot be).
std::optional<std::string> read_small_file(const std::string& path, uint64_t max_bytes, std::string& why) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    why = ec.message();
    return std::nullopt;
  }
  if (size > max_bytes) {
    why = human_bytes(size) + ", over the size limit of " + human_bytes(max_bytes) + " (limits.max_metadata_bytes)";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  std::string text(static_cast<size_t>(size), '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(size))) {
    why = "cannot be read";
    return std::nullopt;
  }
  return text;
}

// The file's sha256 in hex, or "" with `why` set when it cannot be read to its end.
std::string file_sha256(const std::string& path, std::string& why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = "cannot be opened";
    return "";
  }
  Digest d("sha256");
  std::vector<char> buf(1 << 20);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0)
    d.update(buf.data(), static_cast<size_t>(in.gcount()));
  if (in.bad() || !in.eof()) {
    why = "a read failed";
    return "";
  }
  return d.digest_hex();
}

// The trust root the run verifies with: --trusted-root, else the policy's (relative to the policy
// file). Throws std::runtime_error (a usage error) when it is named but unusable.
std::optional<TrustedRoot> load_trust_root(const CheckRequest& req, const Policy& policy) {
  // The policy loader made a policy file's relative trust root absolute (beside that file).
  const std::string path = req.trusted_root.empty() ? policy.provenance.trusted_root : req.trusted_root;
  if (path.empty()) {
    if (policy.provenance.require)
      throw std::runtime_error(
          "provenance.require needs a Sigstore trust root: --trusted-root FILE or the policy's "
          "provenance.trusted_root");
    return std::nullopt;
  }
  std::string why;
  auto text = read_small_file(path, policy.limits.max_metadata_bytes, why);
  if (!text) throw std::runtime_error(path + ": " + why);
  try {
    return TrustedRoot::parse(*text);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": not a Sigstore trusted root: " + e.what());
  }
}

}  // namespace

void read_attestations(std::string_view text, const std::string& name, ProvenanceFacts& p) {
  // PyPI keeps one or two attestations per file (publish, SLSA); more than kMaxAttestations bundles,
  // or attestations in all, are dropped while parsing, so a file of a million tiny ones costs what
  // reading it costs, and is said once (each is verified and each may be a finding).
  constexpr size_t kMaxAttestations = 64;
  size_t kept = 0, dropped = 0;
  // {"attestation_bundles": [{"attestations": [{...}, ...]}, ...]}: a bundle starts at depth 2, an
  // attestation of its list at depth 4 (whatever their JSON types).
  auto keep = [&](const JsonPlace& at) {
    const auto& keys = *at.keys;
    if (at.depth < 2 || keys[0] != "attestation_bundles") return true;
    const bool over = (at.depth == 2 && at.index >= kMaxAttestations) ||
                      (at.depth == 4 && keys[2] == "attestations" && ++kept > kMaxAttestations);
    if (over) ++dropped;
    return !over;
  };
  JsonError err;
  // Nesting bounded: a hostile file cannot exhaust the stack.
  auto parsed = parse_json_pruned(text, keep, &err, 64);
  if (dropped)
    p.errors.push_back(name + ": more than " + std::to_string(kMaxAttestations) +
                       " attestations or bundles; only the first " + std::to_string(kMaxAttestations) + " were read (" +
                       std::to_string(dropped) + " left out)");
  if (!parsed) {
    p.errors.push_back(name + ": not JSON (" + clip_for_display(err.message, 160) + ")");
    return;
  }
  nlohmann::json& doc = *parsed;
  if (!doc.is_object()) {
    p.errors.push_back(name + ": not a JSON object");
    return;
  }
  if (!doc.contains("attestation_bundles")) {
    AttestationFacts af;
    af.file = name;
    af.attestation = std::move(doc);
    p.attestations.push_back(std::move(af));
    return;
  }
  // An Integrity API provenance object: bundles, each a publisher (unsigned) and its attestations.
  auto& bundles = doc["attestation_bundles"];
  if (!bundles.is_array()) {
    p.errors.push_back(name + ": attestation_bundles is not a list");
    return;
  }
  size_t k = 0;
  for (auto& b : bundles) {
    if (!b.is_object() || !b.contains("attestations") || !b["attestations"].is_array()) {
      p.errors.push_back(name + ": a bundle without a list of attestations");
      continue;
    }
    std::string kind, environment;
    if (b.contains("publisher") && b["publisher"].is_object()) {
      const auto& pub = b["publisher"];
      if (pub.contains("kind") && pub["kind"].is_string()) kind = pub["kind"];
      if (pub.contains("environment") && pub["environment"].is_string()) environment = pub["environment"];
    }
    for (auto& a : b["attestations"]) {
      AttestationFacts af;
      af.file = name + "#" + std::to_string(++k);
      af.attestation = std::move(a);
      af.unsigned_kind = kind;
      af.unsigned_environment = environment;
      p.attestations.push_back(std::move(af));
    }
  }
}

namespace {

constexpr const char* kNoTrustRoot = "no trust root: --trusted-root FILE or the policy's provenance.trusted_root";

// Each attestation of `p` verified against the file `base` whose sha256 is `sha` (hex); the
// attestation's bytes are dropped once verified.
void verify_all(ProvenanceFacts& p, const TrustedRoot& root, const std::string& base, const std::string& sha) {
  for (auto& a : p.attestations) {
    a.result = verify_attestation(a.attestation, root, base, sha);
    a.attestation = nullptr;
  }
}

// The attestations of one file (a provenance object's bundles, or one attestation a file), moved
// into `p`; what cannot be read is an error naming the attestation file.
void read_attestation_file(const std::string& path, const std::string& name, uint64_t max_bytes, ProvenanceFacts& p) {
  std::string why;
  auto text = read_small_file(path, max_bytes, why);
  if (!text) {
    p.errors.push_back(name + ": " + why);
    return;
  }
  read_attestations(*text, name, p);
}

}  // namespace

ProvenanceFacts gather_provenance(const std::string& path, const std::string& dir, const TrustedRoot* root,
                                  uint64_t max_bytes, const std::string& known_sha256) {
  ProvenanceFacts p;
  p.looked = true;
  p.verifying = root != nullptr;
  try {
    const std::string base = std::filesystem::path(path).filename().string();
    std::vector<std::pair<std::string, std::string>> candidates;  // (path, how the messages name it)
    for (const char* suffix : {".provenance", ".publish.attestation", ".slsa.attestation"}) {
      candidates.emplace_back(path + suffix, base + suffix);
      if (!dir.empty())
        candidates.emplace_back((std::filesystem::path(dir) / (base + suffix)).string(),
                                (std::filesystem::path(dir) / (base + suffix)).string());
    }
    std::set<std::string> seen;
    for (const auto& [c, name] : candidates) {
      std::error_code ec;
      std::string key = std::filesystem::weakly_canonical(c, ec).string();
      if (!seen.insert(key.empty() ? c : key).second) continue;  // --provenance DIR is the file's own folder
      p.looked_in.push_back(name);
      if (!std::filesystem::is_regular_file(c, ec)) continue;
      read_attestation_file(c, name, max_bytes, p);
    }
    if (p.attestations.empty()) return p;
    if (!root) {
      p.unverified_reason = kNoTrustRoot;
      return p;
    }
    std::string why;
    const std::string sha = known_sha256.empty() ? file_sha256(path, why) : known_sha256;
    if (sha.empty()) {
      p.errors.push_back(base + ": " + why + ", so its sha256 is unknown and no attestation can match it");
      p.attestations.clear();
      return p;
    }
    verify_all(p, *root, base, sha);
  } catch (const std::exception& e) {
    // Whatever escapes (memory, a library's surprise) ends this file's provenance, not the run.
    p.errors.push_back(std::filesystem::path(path).filename().string() +
                       ": reading its attestations stopped: " + e.what());
    p.attestations.clear();
  }
  return p;
}

ProvenanceFacts gather_index_provenance(const TargetRef& t, const TrustedRoot* root, uint64_t max_bytes,
                                        const std::string& downloaded_sha256) {
  ProvenanceFacts p;
  p.looked = true;
  p.verifying = root != nullptr;
  const std::string base = target_basename(t.location);
  const std::string name = base + ".provenance";
  if (t.provenance_url.empty()) {
    p.looked_in.push_back("the index's provenance for " + base + " (the index offers none)");
    return p;
  }
  p.looked_in.push_back(display_url(t.provenance_url));
  try {
    // Bounded like every read: the wheel's time limits, the metadata size limit for the body.
    read_attestations(
        http_get(t.provenance_url, "application/vnd.pypi.integrity.v1+json, application/json;q=0.9", max_bytes), name,
        p);
  } catch (const std::exception& e) {
    p.errors.push_back(name + ": could not be fetched from the index (" + clip_for_display(e.what(), 300) + ")");
    return p;
  }
  if (p.attestations.empty()) return p;
  if (!root) {
    p.unverified_reason = kNoTrustRoot;
    return p;
  }
  if (!downloaded_sha256.empty()) {  // the bytes themselves, hashed as they arrived
    verify_all(p, *root, base, downloaded_sha256);
    return p;
  }
  if (t.sha256.size() != 64 || !all_hex(t.sha256)) {
    p.errors.push_back(name + ": the index gives no sha256 for " + base + ", so no attestation can be matched to it");
    p.attestations.clear();
    return p;
  }
  p.digest_from_index = true;
  verify_all(p, *root, base, t.sha256);
  return p;
}

namespace {

// Where a run keeps what the install-set rules read of each wheel (its entries and binaries, as
// keep_for_install_sets() leaves them) from its own judgement to its set's: in the spill file, so
// the run's memory does not grow with its wheel count. A set being judged is read back whole; of
// the records read back, the most recently used stay loaded up to `resident` bytes of records
// between judgements (the providers many wheels share, a torch's CUDA libraries, are not read again
// for each). Each report item's release record waits in a second file until the report is written
// (report/stored_json.h). A run of one wheel parks nothing; without a spill file (no $TMPDIR to
// write), every wheel stays in memory, with a note.
class Parking {
 public:
  Parking(size_t wheels, uint64_t resident, std::vector<std::string>& notes)
      : resident_(resident), places_(wheels), dirs_(wheels) {
    if (wheels < 2) return;
    try {
      spill_.emplace();
    } catch (const std::exception& e) {
      notes.push_back(std::string(e.what()) + ": every wheel's facts stay in memory until the end of the run");
      return;
    }
    try {
      records_ = std::make_shared<AppendFile>("records");
    } catch (const std::exception&) {
      // The release records stay in memory: the same report, a little more memory.
    }
  }
  // From the thread that read wheel i, once its own rules have run and its facts are cut.
  void park(size_t i, WheelFacts& f) {
    if (!spill_ || (f.entries.empty() && f.binaries.empty())) return;
    dirs_[i] = install_dirs(f);  // the install-set index asks without reading the entries back
    try {
      places_[i] = spill_->park(f);
    } catch (const std::exception&) {
      // The file could not take it (a full disk): this wheel stays in memory, judged the same.
    }
  }
  // A report item's release record, into the run's record file until the report is written.
  void park_record(StoredJson& record) {
    if (records_) record.park(records_);
  }
  void attach(std::vector<WheelFacts>* facts) { facts_ = facts; }
  // Wheel i's entries and binaries, in memory until the next trim().
  void load(size_t i) {
    if (i >= places_.size() || !places_[i]) return;
    if (auto it = std::find(loaded_.begin(), loaded_.end(), i); it != loaded_.end()) {
      loaded_.erase(it);  // already here: now the most recently used
    } else {
      spill_->restore((*facts_)[i], *places_[i]);
      loaded_bytes_ += places_[i]->size;
    }
    loaded_.push_back(i);
  }
  // Between judgements: the least recently used go back to the file until `resident` bytes are
  // held (the most recent stays, whatever its size).
  void trim() {
    size_t gone = 0;
    for (; loaded_bytes_ > resident_ && loaded_.size() - gone > 1; ++gone) {
      loaded_bytes_ -= places_[loaded_[gone]]->size;
      FactsSpill::unload((*facts_)[loaded_[gone]]);
    }
    loaded_.erase(loaded_.begin(), loaded_.begin() + static_cast<std::ptrdiff_t>(gone));
  }
  // Every wheel's install_dirs(), for the install-set index (none when nothing was parked).
  std::vector<std::set<std::string>> take_dirs() { return spill_ ? std::move(dirs_) : decltype(dirs_)(); }

 private:
  uint64_t resident_;
  std::optional<FactsSpill> spill_;
  std::shared_ptr<AppendFile> records_;  // the report items' release records
  std::vector<std::optional<FactsSpill::Place>> places_;
  std::vector<std::set<std::string>> dirs_;
  std::vector<size_t> loaded_;  // read back, least recently used first
  uint64_t loaded_bytes_ = 0;
  std::vector<WheelFacts>* facts_ = nullptr;
};

// A wheel whose binaries define this many symbols in one table settles on two threads (see settle).
constexpr size_t kSettleApartSymbols = 20000;
// A wheel of this many entries runs its per-entry rules on two threads (judge_alone).
constexpr size_t kSettleApartEntries = 20000;

// What a run keeps of a wheel once it is read: its verdict so far, and its report item.
struct Settled {
  std::optional<AloneVerdict> alone;  // the rules that read the wheel alone
  std::string error;                  // why they stopped, when they did (an internal error)
  ItemResult item;                    // all but the findings
  std::optional<SetMember> member;    // its release-set summary (a wheel, not an sdist)
};

// A wheel's report item but for its findings: sizes, notes, SBOM coverage, provenance, its
// release-set summary (also into `member`), and its facts when asked for.
ItemResult report_item(const WheelFacts& f, const Policy& policy, bool include_facts,
                       std::optional<SetMember>& member) {
  ItemResult item;
  item.path = f.path;
  item.size = f.file_size;
  item.bytes_read = f.bytes_read;
  item.requests = f.http_requests;
  item.connections = f.http_connections;
  item.provenance = provenance_summary(f.provenance);
  if (f.sdist) {
    item.kind = "sdist";
    const SdistFacts& sd = f.sdist_facts;
    item.notes.push_back(
        "a source distribution (" + (sd.format.empty() ? std::string("unread") : sd.format) + ", " +
        std::to_string(sd.entries) + " entries" +
        (sd.pkg_info
             ? ", PKG-INFO Metadata-Version " + sd.pkg_info->get("Metadata-Version").value_or("?") +
                   (!promises_static_metadata(*sd.pkg_info) ? std::string(", no field promised static before 2.2")
                    : sd.pkg_info->count("Dynamic") ? ", dynamic: " + join(sd.pkg_info->get_all("Dynamic"), ", ")
                                                    : std::string(", nothing dynamic"))
             : std::string()) +
        ")");
    return item;
  }
  if (!f.index_page) {
    member = summarize(f, policy);
    item.release = member_to_json(*member);
  }
  if (!f.index_page && !f.from_index_metadata) {
    SbomCoverage cov = sbom_coverage(f);
    item.sbom = sbom_summary(cov);
    if (cov.documents == 0 && cov.unknown_documents == 0 && !cov.bundled.empty())
      item.notes.push_back("no SBOM (PEP 770) declares its " + std::to_string(cov.bundled.size()) + " bundled librar" +
                           (cov.bundled.size() == 1 ? "y" : "ies") + " (sbom.require makes this an error)");
    else if (cov.unknown_documents)
      item.notes.push_back(std::to_string(cov.unknown_documents) + " SBOM" + (cov.unknown_documents == 1 ? "" : "s") +
                           " in a format wheelcheck does not read (PEP 770 accepts any standard): not checked");
  }
  if (include_facts) item.facts = facts_to_json(f);
  return item;
}

}  // namespace

RunReport run_check(const CheckRequest& req, const Policy& policy) {
  RunReport report;
  auto targets = expand_target_refs(req.targets, req.match, &report.target_notes);
  // PEP 825 index files found among the targets are read whole, not analysed as wheels.
  std::vector<VariantIndexFile> indexes;
  for (auto it = targets.begin(); it != targets.end();) {
    if (!it->variants_index) {
      ++it;
      continue;
    }
    indexes.push_back(read_variant_index(*it, policy.limits));
    it = targets.erase(it);
  }
  // The same wheel named twice (a file and the folder holding it, a URL repeated) is checked once.
  {
    std::set<std::string> seen;
    std::vector<TargetRef> unique;
    for (auto& t : targets) {
      std::error_code ec;
      std::string key = is_url(t.location) ? t.location : std::filesystem::weakly_canonical(t.location, ec).string();
      if (key.empty()) key = t.location;
      if (seen.insert(key).second)
        unique.push_back(std::move(t));
      else
        report.target_notes.push_back(display_url(t.location) + ": given more than once; checked once");
    }
    targets = std::move(unique);
  }
  if (req.shard_count) {
    std::vector<std::string> all;
    for (const auto& t : targets) all.push_back(target_basename(t.location));
    report.shard = ShardInfo{req.shard_index, req.shard_count, targets.size(), targets_digest(all)};
    std::vector<TargetRef> mine;
    for (auto& t : targets)
      if (shard_of(target_basename(t.location), req.shard_count) == req.shard_index - 1) mine.push_back(std::move(t));
    targets = std::move(mine);
  }
  if (!req.baseline.empty()) read_baseline(req.baseline);  // a bad baseline is a usage error, before any wheel is read
  AnalyzeOptions opt = analyze_options_for(policy);
  opt.binaries = req.binaries;
  opt.depth = req.depth;
  const std::optional<TrustedRoot> trust = load_trust_root(req, policy);  // a bad root is a usage error, first
  // Each wheel, as soon as it is read and on the thread that read it: its PEP 740 attestations
  // (beside a local file, or as the index offers them for a wheel it lists; a wheel given by URL
  // alone has none to fetch: a note in WC913), the rules that read it alone, its report item, and
  // then its facts cut down to what install sets read. The run holds no wheel's facts whole past
  // its own turn.
  std::vector<Settled> settled(targets.size());
  const bool spare_thread = threads_per_wheel(req.jobs, targets.size()) > 1;
  Parking parking(targets.size(), req.resident_bytes, report.target_notes);
  auto settle = [&](size_t i, WheelFacts& f) {
    if (!is_url(targets[i].location))
      f.provenance = gather_provenance(targets[i].location, req.provenance_dir, trust ? &*trust : nullptr,
                                       policy.limits.max_metadata_bytes, f.content_sha256);
    else if (trust && targets[i].from_index && !targets[i].variants_index)  // fetched only to be verified
      f.provenance = gather_index_provenance(targets[i], &*trust, policy.limits.max_metadata_bytes, f.content_sha256);
    Settled& s = settled[i];
    auto judge = [&](bool two_threads) {
      try {
        s.alone = judge_alone(f, policy, two_threads);
      } catch (const std::exception& e) {
        s.error = e.what();
      }
    };
    // A wheel with symbol tables (torch's two libraries name 100,000 symbols) settles on two
    // threads when its read had them (more jobs than wheels): its rules and the slimmed tables the
    // install sets keep on one, its report item (the release summary sorts and packs the exported
    // names) on this one. Both only read the facts; a single wheel's run otherwise ends on one busy
    // core. A thread the system refuses settles the wheel on this one.
    std::vector<std::shared_ptr<const DynamicSymbols>> slim;  // made on the other thread, or by keep_for_install_sets
    std::optional<GuardedThread> rules;
    if (spare_thread && std::any_of(f.binaries.begin(), f.binaries.end(), [](const BinaryFacts& b) {
          return b.symbols && b.symbols->definition_count() >= kSettleApartSymbols;
        }))
      try {
        rules.emplace([&] {
          judge(false);
          slim = slimmed_symbols(f);
        });
      } catch (const std::system_error&) {
        rules.reset();
      }
    if (rules) {
      s.item = report_item(f, policy, req.include_facts, s.member);  // a throw here joins `rules` first
      rules->join();
      if (rules->error()) std::rethrow_exception(rules->error());
    } else {
      // A wheel of many entries (100,000 small files) runs the rules that walk them all beside the
      // others, when its read had two threads.
      judge(spare_thread && f.entries.size() >= kSettleApartEntries);
      s.item = report_item(f, policy, req.include_facts, s.member);
    }
    // A member's binaries, entry points, top-level names and large entries are compared with a
    // baseline's (WC702, WC710-WC716) and nothing else in the run: the report keeps them in the
    // item's release record.
    if (s.member && req.baseline.empty()) drop_baseline_fields(*s.member);
    parking.park_record(s.item.release);
    keep_for_install_sets(f, std::move(slim));
    parking.park(i, f);
  };
  auto facts = analyze_all(targets, opt, req.jobs, req.progress, req.started, settle);
  parking.attach(&facts);
  const size_t judged = facts.size();
  if (policy.provenance.require && !policy.provenance.publisher.any())
    report.target_notes.push_back(
        "provenance.require without provenance.publisher: an attestation from any Sigstore identity passes");
  if (!req.resolve_deps.empty()) {
    // Dependency wheels join the install sets from their central directories and binary headers;
    // they are context, not judged.
    // A few rounds: a meta-package (cuda-toolkit[cublas]) brings in the wheels that ship the libraries.
    AnalyzeOptions dep_opt = opt;
    dep_opt.depth = Depth::metadata;
    IndexPages pages;
    std::vector<std::vector<size_t>> roots(facts.size());
    for (size_t i = 0; i < roots.size(); ++i) roots[i] = {i};
    for (size_t from = 0, round = 0; round < 3; ++round) {
      // From METADATA alone (declared_providers): no parked wheel is read back for it.
      auto deps = dependency_wheels(facts, roots, from, policy, req.resolve_deps, pages, report.dependency_notes);
      from = facts.size();
      if (deps.empty()) break;
      // Each wheel is read once, whatever number of checked wheels it serves.
      std::vector<TargetRef> refs;
      std::map<std::string, std::vector<size_t>> served;
      for (const auto& [t, r] : deps) {
        if (!served.count(t.location)) refs.push_back(t);
        served[t.location].push_back(r);
      }
      std::vector<WheelFacts> read = analyze_all(refs, dep_opt, req.jobs);
      for (size_t k = 0; k < read.size(); ++k) {
        WheelFacts& d = read[k];
        if (!d.unreadable.empty()) {
          // A dependency that cannot be read is a note: it never joins the install set, so it can
          // neither satisfy a need nor turn the checked wheel's warning into an error.
          report.dependency_notes.push_back(d.path + ": could not be read (" + d.unreadable.front().message +
                                            "); not used");
          continue;
        }
        report.dependencies.push_back(d.path);
        roots.push_back(served[refs[k].location]);
        facts.push_back(std::move(d));
      }
    }
  }
  report.policy = policy.name;
  report.policy_source = policy.spec;
  report.depth = req.depth == Depth::metadata ? "metadata" : "full";
  std::vector<SetMember> members;
  InstallSetIndex index(facts, parking.take_dirs(), [&parking](size_t i) { parking.load(i); });
  for (size_t i = 0; i < judged; ++i) {
    Settled& s = settled[i];
    WheelVerdict v;
    if (!s.alone) {
      v = internal_error(policy, s.error);
    } else {
      try {
        parking.load(i);
        v = judge_rest(std::move(*s.alone), facts[i], facts, policy, &index);
      } catch (const std::exception& e) {
        v = internal_error(policy, e.what());
      }
      parking.trim();
    }
    s.item.findings = std::move(v.findings);
    s.item.waived = std::move(v.waived);
    if (s.member) members.push_back(std::move(*s.member));
    report.items.push_back(std::move(s.item));
  }
  if (req.shard_count && (release_rules_apply(policy) || !req.baseline.empty()))
    report.set_note = "shard " + std::to_string(req.shard_index) + "/" + std::to_string(req.shard_count) +
                      ": the release-set rules run when `wheelcheck merge` combines the shards";
  else
    judge_set(report, members, policy, req.baseline, indexes);
  // WC916: a pinned trust root is a snapshot; Sigstore rotates logs and CAs in.
  if (trust && policy.provenance.max_root_age_days) {
    const int64_t now = static_cast<int64_t>(std::time(nullptr));
    const int64_t days = (now - trust->newest_key_start()) / 86400;
    if (days > static_cast<int64_t>(policy.provenance.max_root_age_days)) {
      if (!report.set) report.set = SetSection{};
      report.set->findings.push_back({"WC916",
                                      policy.severity_of("WC916", Severity::warning),
                                      "the trust root's newest key or CA began " + std::to_string(days) +
                                          " days ago, over provenance.max_root_age_days (" +
                                          std::to_string(policy.provenance.max_root_age_days) +
                                          "): refresh the pin from Sigstore's TUF repository",
                                      "",
                                      std::nullopt,
                                      {}});
    }
  }
  return report;
}

}  // namespace wc
