#pragma once

#include <functional>
#include <string>

#include "facts/wheel_facts.h"
#include "io/source.h"
#include "io/targets.h"
#include "policy/policy.h"

namespace wc {

// How much of a wheel is read: everything (every entry inflated, hashed, binaries parsed whole), or
// its metadata (central directory, dist-info files, and the first bytes of entries named or marked
// like binaries, for their headers): a sub-second look at a wheel of any size.
enum class Depth { full, metadata };

struct AnalyzeOptions {
  Limits limits;
  bool binaries = true;  // parse ELF / Mach-O / PE / fatbin entries
  // Leave entries over the ratio limit, and wheels over the entry-count limit, uninflated (WC403
  // reports them). Off when the policy turns WC403 off: then they are read and checked like any other.
  bool refuse_over_limits = true;
  // Workers reading one wheel's entries (entries are spread over them, largest first).
  unsigned threads = 1;
  // With several workers, an entry at least this large (and over its share of the wheel) is read
  // by two: one inflates while another hashes and scans. The tests lower it to keep their wheels small.
  uint64_t pipeline_min_bytes = 32u << 20;
  Depth depth = Depth::full;
  // A remote wheel's whole body is hashed as it arrives (WheelFacts::content_sha256). Off for a
  // target whose digest nothing reads (a URL given directly: no index digest, no index provenance).
  bool hash_body = true;
  std::vector<std::string> capture_files;  // entries kept as text (e.g. a version file the policy reads)
  // Called on the reading thread (a worker's, with several threads) before each entry is read: the
  // tests inject faults there (an allocation failure in a worker must end as a finding).
  std::function<void(const std::string& entry)> before_entry;
};

// Reads a wheel once: central directory, every entry streamed (hash, sniff, binary facts), the
// dist-info files parsed. Never throws for bad wheel bytes; those become facts.
WheelFacts analyze_wheel(Source& src, const AnalyzeOptions& opt);
// Opens `path` (file or http(s) URL) and analyses it; a source that cannot be opened is a fact too.
WheelFacts analyze_target(const std::string& path, const AnalyzeOptions& opt);
// The core metadata an index serves beside a wheel (PEP 658/714): METADATA alone, checked against
// the index's sha256 when it gives one; the wheel is not touched.
WheelFacts analyze_index_metadata(const TargetRef& t, const AnalyzeOptions& opt);
// Options a policy implies: its limits, and the files its rules read.
AnalyzeOptions analyze_options_for(const Policy& p);

}  // namespace wc
