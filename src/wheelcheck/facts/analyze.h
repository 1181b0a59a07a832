#pragma once

#include <string>

#include "facts/wheel_facts.h"
#include "io/source.h"
#include "policy/policy.h"

namespace wc {

struct AnalyzeOptions {
  Limits limits;
  bool binaries = true;  // parse ELF / Mach-O / PE / fatbin entries
  // Leave entries over the ratio limit, and wheels over the entry-count limit, uninflated (WC403
  // reports them). Off when the policy turns WC403 off: then they are read and checked like any other.
  bool refuse_over_limits = true;
  std::vector<std::string> capture_files;  // entries kept as text (e.g. a version file the policy reads)
};

// Reads a wheel once: central directory, every entry streamed (hash, sniff, binary facts), the
// dist-info files parsed. Never throws for bad wheel bytes; those become facts.
WheelFacts analyze_wheel(Source& src, const AnalyzeOptions& opt);
// Opens `path` (file or http(s) URL) and analyses it; a source that cannot be opened is a fact too.
WheelFacts analyze_target(const std::string& path, const AnalyzeOptions& opt);
// Options a policy implies: its limits, and the files its rules read.
AnalyzeOptions analyze_options_for(const Policy& p);

}  // namespace wc
