// PEP 770 SBOMs held against the wheel (WC901-WC905 here, WC906 over the release set): what the
// documents claim, and which bundled native libraries they declare. One coverage computation feeds
// the rules, the report's `sbom` summary and the release-set member.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/wheel_facts.h"
#include "rules/rules.h"

namespace wc {

// A native library the wheel ships that the package itself does not build: auditwheel's grafts in
// `<pkg>.libs/`, delocate's `.dylibs/`, delvewheel's DLLs, or a well-known third-party library by
// its name anywhere in the wheel (extension modules never).
struct BundledLibrary {
  std::string entry;       // archive path
  std::string original;    // file name without the graft hash ("libcrypto.so.1.1.1k")
  std::string graft_hash;  // the grafting tool's content prefix ("3b5ab3b1"), "" when none
  std::string stem;        // "libcrypto"
  std::string upstream;    // what it is, when known ("OpenSSL")
  bool security = false;   // what CVE scanners are asked about first (TLS, HTTP, databases, codecs, parsers)
};

struct SbomLink {
  size_t document = 0, component = 0;
  std::string how;  // "bom-ref path hash", "location", "file hash", "name"
};

struct SbomCoverage {
  size_t documents = 0;          // read as CycloneDX or SPDX
  size_t unknown_documents = 0;  // other standards (PEP 770 forbids rejecting them)
  size_t components = 0;         // over those documents, file entries not counted
  std::vector<BundledLibrary> bundled;
  std::vector<std::optional<SbomLink>> declared_by;  // per bundled library
  size_t declared() const;
  // The undeclared libraries, security-relevant ones first, then by path.
  std::vector<const BundledLibrary*> undeclared() const;
};

std::vector<BundledLibrary> bundled_libraries(const WheelFacts& f);
// "libcrypto-3b5ab3b1.so.1.1.1k" -> ("libcrypto.so.1.1.1k", "3b5ab3b1"): auditwheel's and delvewheel's
// graft hash taken out of a file name ("" when there is none).
std::pair<std::string, std::string> without_graft_hash(std::string_view name);
// The version a library's file name carries: "libcrypto.so.1.1.1k" -> "1.1.1k", "libz.1.3.1.dylib" ->
// "1.3.1"; "" when none.
std::string file_name_version(std::string_view original);
SbomCoverage sbom_coverage(const WheelFacts& f);
// The report's per-wheel summary: {documents, components, bundled, declared, undeclared[]}.
nlohmann::json sbom_summary(const SbomCoverage& c);
// One line for people, from that summary ("" when the wheel carries no SBOM: a note says what that leaves
// undeclared).
std::string sbom_summary_line(const nlohmann::json& summary);

void sbom_rules(const WheelFacts& f, FindingSink& s);  // WC901-WC905

}  // namespace wc
