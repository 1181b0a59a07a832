// Source distributions (PEP 625, PEP 643), the facts of one: a .tar.gz (or legacy .zip) read with
// libarchive, streamed, nothing extracted. What is judged: the names, types and sizes of its entries
// (as tarfile's "data" filter and pip would judge them) and its PKG-INFO.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/source.h"
#include "policy/policy.h"
#include "wheel/metadata.h"

namespace wc {

struct SdistProblem {
  std::string rule;  // WC401 (where it extracts), WC402 (links, devices), WC403 (size), WC404 (unreadable)
  std::string message;
  std::string entry;
};

struct SdistFacts {
  std::string format;                  // "tar.gz", "tar", "zip" (libarchive's name for the container)
  std::string top;                     // the one top-level folder ("demo-1.0"), "" when there is none or more
  std::optional<HeaderFile> pkg_info;  // <top>/PKG-INFO
  std::string pkg_info_problem;        // why PKG-INFO is missing or was not read
  std::vector<SdistProblem> problems;
  uint64_t entries = 0, uncompressed = 0, compressed = 0;
  // The file's sha256 (lower-case hex), hashed as the archive streamed past: "" when the reader
  // stopped before the last byte (a problem above says why).
  std::string sha256{};
};

// Reads the sdist in `src` once, in order, within `limits` (entry count, total size, compression
// ratio, path length, metadata size); never throws: what cannot be read (a local file or a body
// streamed over HTTP that fails) is a WC404 problem.
SdistFacts read_sdist(Source& src, const Limits& limits);
// The same for a path or an http(s) URL (streamed once: ReadPlan::whole).
SdistFacts read_sdist(const std::string& location, const Limits& limits);

// Whether PKG-INFO promises its static fields (PEP 643): Metadata-Version 2.2 or later. Before it
// nothing says which fields a build may change, so none is held to the wheels.
bool promises_static_metadata(const HeaderFile& pkg_info);

// PEP 625's file name for a project and version: the name normalised and escaped ("my_pkg"), the
// version as given, ".tar.gz".
std::string pep625_sdist_name(const std::string& name, const std::string& version);

}  // namespace wc
