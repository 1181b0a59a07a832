// Policies: which rules apply at which severity, limits, forbidden paths, waivers, and the platform,
// CUDA and release-set tables the rules read. Loaded from JSON (the shipped ones are embedded in
// the binary), merged along `extends`, validated against policies/policy.schema.json, and parsed
// once into the typed sections below. No other module reads the JSON.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/finding.h"
#include "util/pattern.h"

namespace wc {

struct Limits {
  // PyPI's upload check (warehouse): refused when the uncompressed size is over 64 MiB and the
  // ratio over 50. Applied per archive and per entry; smaller entries are not bombs worth refusing.
  double max_compression_ratio = 50.0;
  uint64_t ratio_min_entry_bytes = 64ull << 20;
  uint64_t max_total_uncompressed_bytes = 16ull << 30;
  uint64_t max_entries = 100000;
  uint64_t max_wheel_bytes = 0;  // 0: no limit (WC701)
  uint64_t max_path_length = 1024;
  uint64_t max_metadata_bytes = 16u << 20;  // WHEEL, METADATA, RECORD read into memory
  // What one wheel's analysis may hold in structures sized by the input's counts (util/budget.h).
  uint64_t max_analysis_bytes = 1ull << 30;

  // The whole-archive rule: the declared sizes of all entries over ratio_min_entry_bytes in total
  // and more than max_compression_ratio times their compressed sizes.
  bool wheel_over_ratio(uint64_t declared, uint64_t compressed) const {
    return declared > ratio_min_entry_bytes && double(declared) > max_compression_ratio * double(compressed);
  }
};

// Declared and compressed bytes summed over entries (saturating: hostile sizes cannot wrap).
struct ArchiveTotals {
  uint64_t declared = 0, compressed = 0;
  void add(uint64_t size, uint64_t csize) {
    declared = declared + size < declared ? UINT64_MAX : declared + size;
    compressed = compressed + csize < compressed ? UINT64_MAX : compressed + csize;
  }
};

struct ForbidRule {
  std::string glob;
  Severity severity = Severity::error;
  std::string reason;
};

// A finding the project accepts: by rule, optionally only for entries matching a glob.
struct Waiver {
  std::string rule;
  std::string path;  // glob on the finding's entry; empty: every entry
  std::string reason;
};

// One manylinux_X_Y or musllinux_X_Y level (auditwheel's policy model): which architectures it
// defines, the newest symbol version per prefix it allows (per architecture where they differ),
// and the system libraries a wheel may rely on (cumulative from the oldest level).
struct LinuxLevel {
  int major = 0, minor = 0;
  std::set<std::string> arches;
  std::map<std::string, std::string> symbols;                              // prefix -> newest version ("0": none)
  std::map<std::string, std::map<std::string, std::string>> arch_symbols;  // arch -> prefix -> version
  std::vector<std::string> libraries;
  std::map<std::string, std::set<std::string>> blacklist;  // library -> symbols not to take from it
  std::string ceiling(const std::string& arch, const std::string& prefix) const;  // "" when unconstrained
};

struct LinuxPolicy {
  std::vector<LinuxLevel> manylinux, musllinux;  // oldest first
  std::vector<std::string> allowed_libraries;    // globs, any Linux tag
  unsigned x86_64_isa_baseline = 1;
};

struct MacosPolicy {
  std::vector<std::string> system_prefixes;
  std::vector<std::string> ios_host_provided;  // install names an iOS host app provides
};

struct CudaVariantInfo {
  std::string name;  // cu130
  int major = 0, minor = 0;
  std::set<int> sm, arch_specific, family;
  std::string max_ptx_isa;
};

struct CudaRequirement {
  std::vector<std::string> sass, ptx;
};

enum class RequireScope { wheel, binary, container };

struct CudaPolicy {
  std::optional<std::string> variant;  // forced instead of the +cuXYZ local version
  std::map<std::string, CudaVariantInfo> variants;
  std::map<std::string, int> runtime_sonames;  // soname -> CUDA major
  std::set<std::string> toolkit_versioned_packages;
  std::vector<std::string> driver_libraries;
  bool allow_arch_specific = true;
  RequireScope require_scope = RequireScope::wheel;
  std::map<std::string, CudaRequirement> require;  // "cu130" or "cu130-aarch64"
  std::vector<std::string> expect_from_dependencies;
  struct VersionFile {
    std::string path;
    std::string regex_text;
    std::shared_ptr<const Pattern> regex;
  };
  std::optional<VersionFile> version_file;
  // Dependency (canonical name, optionally with one [extra]) -> the sonames its wheel installs.
  std::map<std::string, std::vector<std::string>> providers;
  // Projects whose import loads their libraries into the process (a dependent binds them by soname).
  std::vector<std::string> import_loaded;
  // Facts wheelsmoke needs too; one home (policies/cuda.json).
  std::map<std::string, std::string> ptx_isa_min_cuda;          // "8.7" -> "12.8"
  std::vector<std::pair<std::string, std::string>> ga_drivers;  // ("12.8", "570.26"), oldest first
  std::map<int, std::string> runtime_driver_floor;              // 12 -> "525.60.13"
  std::map<std::string, std::string> gpus;                      // "H100" -> "9.0"
};

// The release set a nightly gate expects (WC702-WC705, WC707).
struct MatrixException {
  std::string python, platform, variant;  // globs; empty matches anything
  std::string reason;
};

// Core metadata tables (WC205), generated by tools/gen_pypi_metadata_data.py. Identifiers are keyed
// by their lower-case form, as packaging.licenses looks them up.
struct MetadataPolicy {
  std::string spdx_list_version, spdx_source, classifiers_source;                  // "package version" of the source
  std::map<std::string, std::string, std::less<>> spdx_licenses, spdx_exceptions;  // lower-case -> id
  std::set<std::string, std::less<>> spdx_deprecated;                              // ids (licenses, exceptions)
  std::set<std::string, std::less<>> classifiers;
  std::map<std::string, std::vector<std::string>, std::less<>> deprecated_classifiers;  // -> replacements
};

struct ReleasePolicy {
  bool defined = false;
  std::string project;  // canonical-name glob the matrix applies to
  std::string version;  // version glob
  std::vector<std::string> python, platforms, variants;
  std::vector<MatrixException> exceptions;
  double max_growth_ratio = 1.25;  // WC702 against --baseline
  uint64_t min_entry_bytes_reported = 1u << 20;
  std::vector<std::string> consistent_fields = {"Version", "Requires-Python", "Classifier", "Requires-Dist",
                                                "Import-Name"};
  // WC705/WC707 over every group of wheels of one project and version in a run, release section
  // or not ("consistency": false turns that off; a declared release is judged as declared).
  bool consistency = true;
};

struct PolicyIssue {
  std::string pointer;  // JSON pointer into the policy document
  int line = 0;         // 1-based, 0 when unknown
  std::string message;
};

class PolicyError : public std::runtime_error {
 public:
  PolicyError(std::string file, std::vector<PolicyIssue> issues);
  const std::vector<PolicyIssue>& issues() const { return issues_; }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<PolicyIssue> issues_;
};

// Symbol audits (WC511, WC512).
struct AbiPolicy {
  std::string stable_abi_source;
  std::map<std::string, std::string, std::less<>> stable_abi;  // symbol -> "3.7": stable since
  std::map<std::string, std::string> conditional;              // symbol -> feature macro (MS_WINDOWS)
  struct SymbolWaiver {
    std::string symbol;  // name or glob
    std::string path;    // glob on the binary's entry; empty: every binary
    std::string reason;
  };
  std::vector<SymbolWaiver> waive_symbols;
  struct Cxx11 {
    std::vector<std::string> namespaces;  // outermost: c10, at, torch, caffe2
    std::vector<std::string> libraries;   // globs: must carry C++11-ABI symbols
    uint64_t min_cxx11_symbols = 0;
  };
  std::optional<Cxx11> cxx11;
};

// Wheel variants (WC803, WC804): what each provider offers, and how GPU coverage counts.
struct VariantFeatureRule {
  std::string pattern_text, offered_text, offered_reason;
  std::shared_ptr<const Pattern> pattern, offered;
  bool multi_value = true;
  std::string min, max;  // dotted-version range, "" when none
};
struct VariantPolicy {
  bool coverage_every = true;
  std::map<std::string, std::map<std::string, VariantFeatureRule>> catalogue;  // namespace -> feature
};

struct Policy {
  std::string name = "default";
  std::string spec;  // what it was loaded from: a shipped name, or the file's absolute path
  std::string description;
  std::vector<std::string> sources;          // the files / embedded names merged, base first
  std::map<std::string, Severity> severity;  // overrides of the catalogue's defaults
  Limits limits;
  std::vector<ForbidRule> forbid;
  std::vector<Waiver> waivers;
  LinuxPolicy linux;
  MacosPolicy macos;
  AbiPolicy abi;
  MetadataPolicy metadata;
  VariantPolicy variant;
  CudaPolicy cuda;
  ReleasePolicy release;

  Severity severity_of(const std::string& rule, Severity fallback) const;
  // The resolved document, for `wheelcheck policy show`; rules read the typed sections above.
  nlohmann::json document;
};

// `spec` is a file path or the name of a shipped policy. Throws PolicyError.
Policy load_policy(const std::string& spec);
// A policy given as a document instead of a file (a project's [tool.wheelcheck] table): checked
// against the policy schema, its `extends` resolved relative to `dir`, named `label` in messages
// and in Policy::sources. Throws PolicyError.
Policy load_policy_document(const nlohmann::json& doc, const std::string& label, const std::string& dir);
// Checks one document (no extends resolution beyond checking the names exist).
std::vector<PolicyIssue> validate_policy_text(const std::string& text, const std::string& file);
std::vector<std::string> shipped_policy_names();
const std::string* shipped_policy_text(const std::string& name);
// Directories searched for NAME.json when a policy is given by name and is not shipped: each of
// $WHEELCHECK_POLICY_PATH (':'-separated), then the installed share/wheelcheck/policies beside the
// running binary (a site or team puts its policies there).
std::vector<std::string> policy_search_dirs();
// (name, file) of the *.json policies in those directories that are not shipped ones.
std::vector<std::pair<std::string, std::string>> installed_policies();
const std::string& policy_schema_text();

}  // namespace wc
