#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace wc {

struct IndexLink {
  std::string filename, url;  // url absolute, fragment (#sha256=...) removed
  std::string sha256;         // from the #sha256= fragment or PEP 691 "hashes" (lower-case hex), or ""
  bool metadata = false;      // PEP 658/714: the core metadata is served at url + ".metadata"
  std::string metadata_sha256;
  std::string fragment;  // as written after '#' ("sha256=..."), "" when none
  // PEP 740: where the index serves the file's provenance (PEP 691 "provenance", HTML
  // data-provenance), absolute; "" when it offers none.
  std::string provenance_url;
};

// A wheel to check, and what the index said of it (PEP 658/714 metadata served beside it).
struct TargetRef {
  std::string location;         // path or URL
  std::string metadata_url;     // "" unless the index serves the core metadata
  std::string metadata_sha256;  // hex, when the index gives it
  std::string sha256;           // of the wheel, when the index gives it
  std::string error;            // an index page that could not be read: a finding on that target
  // A PEP 825 index file ({name}-{version}-variants.json), not a wheel: given as a target, found
  // beside the wheels in a folder, or linked from an index page (then with its hash fragment).
  bool variants_index = false;
  std::string fragment{};
  // A source distribution (.tar.gz), named or found in a folder: only its provenance is checked.
  bool sdist = false;
  bool from_index = false;       // listed by an index page (its provenance is the index's to offer)
  std::string provenance_url{};  // PEP 740: the index's provenance URL for it, "" when none offered
};

// What one index page gave: the links kept (filtered and capped while parsing) and how many more.
struct IndexPage {
  std::vector<IndexLink> links;
  uint64_t seen = 0;      // links on the page
  uint64_t left_out = 0;  // links `keep` accepted past the cap
};
using LinkFilter = std::function<bool(std::string_view filename)>;
// Parses a page in bounded memory: only links `keep` accepts (all when empty) are kept, at most
// `max_links` of them; a PEP 691 reply's file objects are dropped as soon as they are read.
// Throws std::runtime_error on malformed JSON.
IndexPage parse_index_page(const std::string& body, const std::string& page_url, const LinkFilter& keep,
                           uint64_t max_links);

// `notes`, when given, gets what the expansion left out (index pages whose links were capped). An
// index page that cannot be read is a TargetRef with `error` set, not an exception.
std::vector<TargetRef> expand_target_refs(const std::vector<std::string>& targets, const std::string& match = "",
                                          std::vector<std::string>* notes = nullptr);

// Expands command-line targets: directories (recursively, *.whl, sorted), files and wheel URLs as
// given, and package index project pages (PEP 503 HTML or PEP 691 JSON, any http(s) URL not
// ending in .whl) into their wheel links; sdists are left out. `match` (a glob on file names) filters index links.
// Throws std::runtime_error naming the target that does not exist or holds no wheels.
std::vector<std::string> expand_targets(const std::vector<std::string>& targets, const std::string& match = "");
// Parses an index page body fetched from `page_url`; throws std::runtime_error on malformed JSON.
std::vector<IndexLink> parse_index_page(const std::string& body, const std::string& page_url);
// An http:// or https:// target.
bool is_url(const std::string& target);
// The file name a target's wheel name is read from: the last path component, URL-decoded, with
// any query or fragment removed.
std::string target_basename(const std::string& target);

}  // namespace wc
