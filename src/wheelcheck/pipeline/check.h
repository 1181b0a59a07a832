// The check pipeline as a library: targets -> analysis (threads) -> rules -> report. The CLI's
// `check` is a thin wrapper; tests and other front ends call this directly.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "facts/analyze.h"
#include "policy/policy.h"
#include "report/report.h"
#include "rules/loader/install_set.h"
#include "rules/release/release_set.h"

namespace wc {

struct CheckRequest {
  std::vector<std::string> targets;           // files, directories, wheel URLs, index pages
  std::string match;                          // glob on index links' file names
  unsigned jobs = 0;                          // wheels analysed at once; 0: the number of cores
  bool binaries = true;                       // ELF / Mach-O / PE / fatbin analysis
  Depth depth = Depth::full;                  // what of each wheel is read
  std::string baseline;                       // a previous JSON report: sizes compared (WC702)
  unsigned shard_index = 0, shard_count = 0;  // --shard I/N (1-based); 0/0: no sharding
  bool include_facts = false;                 // facts in the report items (JSON)
  // A package index (PEP 503/691 base, e.g. https://pypi.org/simple): the dependency wheels that
  // the providers table says install needed libraries are found there, their central directories
  // read by range requests, and needs resolved against them for real.
  std::string resolve_deps;
  // PEP 740: a Sigstore trusted_root.json (overrides the policy's provenance.trusted_root), and a
  // folder holding attestations named <file>.provenance / .publish.attestation / .slsa.attestation
  // (they are looked for beside each local file too).
  std::string trusted_root, provenance_dir;
  // Called after each wheel is analysed (from worker threads, serialised).
  std::function<void(size_t done, size_t total, const std::string& path)> progress;
  // Called when a wheel's analysis starts (from worker threads, serialised with `progress`).
  std::function<void(const std::string& path)> started;
  // A run of several wheels parks each one's entries and binaries in a spill file once its own
  // rules have run (facts/spill.h): of those read back for a set, the most recently used stay
  // loaded up to this many bytes of records between judgements (tests set 0: every wheel but the
  // last used is read back each time a set reaches it).
  uint64_t resident_bytes = 8ull << 20;
};

// Expands the targets (throws std::runtime_error for a target that does not exist or lists no
// wheels: a usage error), analyses every wheel and judges it. Never throws for a bad wheel.
RunReport run_check(const CheckRequest& req, const Policy& policy);

// Analyses `paths` with `jobs` threads; results keep input order. Each wheel is its own error
// boundary: an unexpected exception becomes a WC404 fact on that wheel and the rest goes on.
std::vector<WheelFacts> analyze_all(const std::vector<std::string>& paths, const AnalyzeOptions& opt, unsigned jobs,
                                    const std::function<void(size_t, size_t, const std::string&)>& progress = {});
// The same over index targets: at --depth metadata, a wheel whose index serves its core metadata
// (PEP 658) is judged from that alone. `settle(i, facts)` runs on the reading thread as soon as
// target i is read (before `progress` counts it): what the run does with each wheel before the
// next is read.
std::vector<WheelFacts> analyze_all(const std::vector<TargetRef>& targets, const AnalyzeOptions& opt, unsigned jobs,
                                    const std::function<void(size_t, size_t, const std::string&)>& progress = {},
                                    const std::function<void(const std::string&)>& started = {},
                                    const std::function<void(size_t, WheelFacts&)>& settle = {});

// The release-set members of a previous JSON report (--baseline); throws std::runtime_error naming
// the file when it is not a wheelcheck report.
std::vector<SetMember> read_baseline(const std::string& path);
// Set rules over `members` into `report.set` (with the baseline, when given).
void judge_set(RunReport& report, const std::vector<SetMember>& members, const Policy& policy,
               const std::string& baseline, const std::vector<VariantIndexFile>& indexes = {});

// One wheel's verdict against the others checked with it; an exception while judging becomes a
// WC404 finding naming what failed.
// `index` (made once for `all`) keeps a run of many wheels linear; the verdict is the same without it.
WheelVerdict judge_wheel(const WheelFacts& f, const std::vector<WheelFacts>& all, const Policy& policy,
                         InstallSetIndex* index = nullptr);

// The attestations of the local file `path` (beside it and in `dir`), verified against `root` when
// given; a file that cannot be read or is not an attestation is an error in the result.
// The attestations in one attestation file's text (a provenance object's bundles, or a single
// attestation), appended to `p`; what cannot be read is an error naming `name`. At most 64
// attestations and 64 bundles are kept (the rest is said in one error).
void read_attestations(std::string_view text, const std::string& name, ProvenanceFacts& p);
ProvenanceFacts gather_provenance(const std::string& path, const std::string& dir, const TrustedRoot* root,
                                  uint64_t max_bytes, const std::string& known_sha256 = "");
// PEP 740 for a wheel an index page lists: the provenance the index offers for it (PEP 691
// "provenance", data-provenance), fetched bounded and verified against the index's sha256 for the
// file (the wheel's own bytes are not hashed as a whole). None offered: looked for, none found
// (WC913 where required); a fetch that fails or a body that is not a provenance object: an error.
// `downloaded_sha256`, when the file was read whole (hashed as it streamed), is what the subjects
// must name; otherwise the index's sha256 stands in for it (and the report says so).
ProvenanceFacts gather_index_provenance(const TargetRef& t, const TrustedRoot* root, uint64_t max_bytes,
                                        const std::string& downloaded_sha256 = "");

unsigned default_jobs();

}  // namespace wc
