// SBOMs a wheel carries in `*.dist-info/sboms/` (PEP 770): CycloneDX JSON 1.4-1.7, SPDX 2.2/2.3
// JSON and SPDX 3.0 JSON-LD, read into one shape. Reading is bounded (the caller caps the size;
// depth and component count are capped here) and never throws: what a format requires and the
// document lacks is listed in `errors`, what cannot be read at all too. Documents in other formats
// are kept as unknown (PEP 770 forbids rejecting a standard a tool does not know).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wc {

struct SbomHash {
  std::string algorithm;  // lower case, no dash: "sha256", "sha1", "sha512", "md5", "sha3-256" ...
  std::string hex;        // lower-case hex as the document gives it
};

struct SbomComponent {
  std::string ref;  // CycloneDX bom-ref, SPDX SPDXID / spdxId
  std::string name, version, purl, type;
  std::vector<std::string> cpes;
  std::string download_url;  // CycloneDX distribution reference, SPDX downloadLocation (not NONE/NOASSERTION)
  std::vector<SbomHash> hashes;
  // Paths in the archive that are this component's own bytes: CycloneDX evidence.occurrences, a
  // file element's own name. Its hashes are those files' hashes.
  std::vector<std::string> locations;
  // Paths of the files it holds: SPDX files it CONTAINS (or that are CONTAINED_BY / GENERATED_FROM
  // it), CycloneDX file components nested in it. They declare those files, but the component's own
  // hashes are not theirs.
  std::vector<std::string> contained;
  // The component this one is nested in (CycloneDX components[].components), -1 at the top.
  int parent = -1;
  bool is_file = false;   // a file entry (CycloneDX type "file", SPDX file): not a component
  bool excluded = false;  // CycloneDX scope "excluded"
  bool identified() const { return !purl.empty() || !cpes.empty() || !download_url.empty(); }
};

struct SbomLimits {
  unsigned max_depth = 64;             // nesting of JSON values
  size_t max_components = 200000;      // components and files together
  size_t max_relationships = 1000000;  // CycloneDX dependsOn targets, SPDX relationships
};

struct SbomDocument {
  std::string entry;         // the archive entry
  std::string format;        // "CycloneDX", "SPDX", or "" when not read as either
  std::string spec_version;  // "1.6", "2.3", "3.0.1"
  std::string known_as;      // an unknown document's kind when recognisable ("CycloneDX XML", "SPDX tag-value")
  bool unknown() const { return format.empty(); }
  std::string serial;  // CycloneDX serialNumber
  bool has_created = false, has_tool = false;
  std::vector<std::string> tools;                // names as written ("auditwheel 6.5.0", "Tool: maturin-1.9")
  std::vector<SbomComponent> components;         // the primary among them, files too (is_file)
  int primary = -1;                              // index into components, -1 when the document names none
  std::vector<std::pair<size_t, size_t>> edges;  // from -> to: dependencies, containment, descriptions
  std::vector<std::string> errors;               // WC901 error: not readable, or what the format requires is missing
  std::vector<std::string> warnings;             // WC901 warning: a newer version than known, unresolved references
  // WC905: absolute build-machine paths the document carries (the first few, with their JSON pointer).
  std::vector<std::string> build_paths;
  size_t build_path_count = 0;
  size_t file_count() const;
  size_t component_count() const { return components.size() - file_count(); }
};

SbomDocument parse_sbom(std::string entry, std::string_view text, const SbomLimits& limits = {});

// Whether `path` reads as a build machine's absolute path: a CI workspace (/__w/, /home/runner/,
// /github/workspace/, D:\a\), a home directory, a temporary build directory (/tmp/..., /var/tmp/,
// /private/var/folders/). A path that merely contains "/build/" is not one.
bool is_build_machine_path(std::string_view s);

// The hash a purl-with-fragment bom-ref ends in (auditwheel: purl#<sha256 of the source path>),
// lower case, or "" when it ends in none.
std::string bom_ref_path_hash(std::string_view ref);

// purl parts (package-url spec): type, namespace/name (percent-decoded), version, qualifiers.
struct Purl {
  std::string type, name_space, name, version;
  std::vector<std::pair<std::string, std::string>> qualifiers;
  std::string qualifier(std::string_view key) const;
};
bool parse_purl(std::string_view text, Purl& out);

}  // namespace wc
