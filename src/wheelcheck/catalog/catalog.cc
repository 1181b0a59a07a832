#include "catalog/catalog.h"

#include <vector>

namespace wc {

// A table, not logic: one row per rule. IDs are stable; retired IDs are never reused.
const char* severity_name(Severity s) {
  switch (s) {
    case Severity::off: return "off";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "off";
}

std::optional<Severity> parse_severity(std::string_view s) {
  if (s == "off") return Severity::off;
  if (s == "warning") return Severity::warning;
  if (s == "error") return Severity::error;
  return std::nullopt;
}

std::span<const RuleInfo> wheelcheck_rules() {
  using S = Severity;
  static const std::vector<RuleInfo> rules = {
      {"WC101", S::error,
       "filename does not follow {name}-{ver}(-{build})?-{py}-{abi}-{plat}.whl (PEP 427/491, PEP 440 version, escaped "
       "name)",
       "core"},
      {"WC102", S::error, "dist-info missing, duplicated, or not named {name}-{ver}.dist-info", "core"},
      {"WC103", S::error, "WHEEL Tag: set differs from the filename's expanded tag set", "core"},
      {"WC104", S::error, "WHEEL missing fields / unsupported Wheel-Version / bad Root-Is-Purelib", "core"},
      {"WC105", S::error, "python / abi / platform tags inconsistent with each other or with the contents", "core"},
      {"WC106", S::error, "platform tag not valid or not accepted by PyPI", "core"},
      {"WC107", S::warning,
       "filename parts not in normalised form (escaped lower-case name, normalised version, lower-case tags)", "core"},
      {"WC108", S::off, "local version (+label) in the filename: PyPI rejects it (enable for PyPI uploads)", "core"},
      {"WC201", S::error, "METADATA Name / Version differ from the filename", "core"},
      {"WC202", S::error, "METADATA malformed or missing required fields", "core"},
      {"WC203", S::error, "Requires-Python excludes the wheel's own python tag", "core"},
      {"WC204", S::error, "Requires-Dist CUDA pins disagree with the wheel's CUDA variant", "binaries"},
      {"WC205", S::off,
       "core metadata PyPI's upload rejects (license fields and expression, License-File, classifiers, Summary "
       "length, e-mail and URL fields, direct-URL requirements, Dynamic, Import-Name/Import-Namespace; an error in "
       "pypi, a warning in strict)",
       "core"},
      {"WC208", S::error,
       "entry_points.txt not UTF-8 INI of 'name = module:object' lines, or a console/gui script name outside "
       "[\\w.-]+ (PyPI rejects the upload)",
       "core"},
      {"WC209", S::warning,
       ".pth file with 'import' lines: code run at every start-up, ignored from about Python 3.18 "
       "(PEP 829)",
       "core"},
      {"WC210", S::warning, "RECORD.jws / RECORD.p7s wheel signature (PEP 815: deprecated)", "core"},
      {"WC211", S::off, "Python module at a path import cannot reach (check-wheel-contents W004; on in strict)",
       "core"},
      {"WC212", S::off, "several top-level packages or modules in site-packages (check-wheel-contents W009)", "core"},
      {"WC213", S::warning, "top-level directory in site-packages with no Python module (check-wheel-contents W010)",
       "core"},
      {"WC214", S::off,
       "identical content under several names (check-wheel-contents W002; off, in strict too: 23 of 84 real wheels, "
       "none a defect)",
       "core"},
      {"WC215", S::off,
       "file at the top of site-packages that is no module and no .pth (check-wheel-contents W003; a warning in "
       "strict)",
       "core"},
      {"WC216", S::off,
       "common top-level name in site-packages: build, src, docs, lib, scripts, tests ... (check-wheel-contents W005; "
       "a warning in strict)",
       "core"},
      {"WC217", S::off, "__init__.py at the top of site-packages (check-wheel-contents W006; a warning in strict)",
       "core"},
      {"WC218", S::off,
       "wheel installs nothing into site-packages, or holds nothing beside its dist-info and is no metapackage "
       "(check-wheel-contents "
       "W007/W008; a warning in strict)",
       "core"},
      {"WC301", S::error, "RECORD missing or malformed", "core"},
      {"WC302", S::error, "file hash differs from RECORD", "core"},
      {"WC303", S::error, "file size differs from RECORD", "core"},
      {"WC304", S::error, "archive entry not listed in RECORD", "core"},
      {"WC305", S::error, "RECORD lists a file the archive lacks", "core"},
      {"WC306", S::error, "RECORD uses a weak or unknown hash algorithm, or no hash", "core"},
      {"WC307", S::error, "duplicate entry names", "core"},
      {"WC401", S::error,
       "unsafe entry path (absolute, .., backslash, drive letter, NUL, control character or line break, not UTF-8 or "
       "cp437-decoded, over-long, colliding, collapsed by Windows or by case folding)",
       "core"},
      {"WC402", S::error, "symlink, device or other non-regular entry", "core"},
      {"WC403", S::error, "decompression or analysis limits exceeded (ratio, total size, entry count, memory budget)",
       "core"},
      {"WC404", S::error, "archive unreadable: not a zip, truncated, CRC error, local/central header mismatch", "core"},
      {"WC405", S::error, "compression method other than STORED or DEFLATED", "core"},
      {"WC406", S::warning,
       "zip structure PyPI's upload check refuses though installers read it (per-entry comments, data descriptors, "
       "stray or duplicate extra fields, ZIP64 extras it reads otherwise; an error in the pypi policy)",
       "core"},
      {"WC407", S::error,
       "the file's sha256 differs from the one its index page gives (PEP 503 #sha256= or PEP 691 hashes): pip "
       "refuses it",
       "core"},
      {"WC501", S::error, "binary architecture differs from the platform tag", "binaries"},
      {"WC502", S::error, "versioned symbols (GLIBC, GLIBCXX, CXXABI, GCC) newer than the manylinux tag allows",
       "binaries"},
      {"WC503", S::error, "needed library neither allowed by policy nor shipped in the wheel (or in the install set)",
       "binaries"},
      {"WC504", S::error, "RPATH/RUNPATH absolute or pointing outside the install tree", "binaries"},
      {"WC505", S::error, "libc flavour differs from the tag (glibc in musllinux, musl in manylinux)", "binaries"},
      {"WC506", S::error, "macOS minimum OS above the tag's version, or wrong Mach-O arch", "binaries"},
      {"WC507", S::error, "Windows PE machine differs from the tag", "binaries"},
      {"WC508", S::error, "binary cannot be parsed (ELF, Mach-O, PE or fatbin structure out of bounds or inconsistent)",
       "binaries"},
      {"WC509", S::warning, "executable stack requested (PT_GNU_STACK with execute)", "binaries"},
      {"WC510", S::warning, "x86-64 ISA level above what the platform tag's baseline guarantees", "binaries"},
      {"WC511", S::error,
       "abi3/abi3t wheel's binaries import Python C-API symbols outside the stable ABI of the tagged cpXY (or a "
       "versioned python3XY.dll, or an abi3t module without PyModExport_)",
       "binaries"},
      {"WC512", S::off,
       "pre-C++11 std::basic_string/std::list symbols in the policy's C++ namespaces, or too few C++11-ABI symbols "
       "(PyTorch's check; on in the pytorch policy)",
       "binaries"},
      {"WC513", S::error, "symbol versions needed from a library that no DT_NEEDED entry names", "binaries"},
      {"WC514", S::error,
       "undefined symbol or needed symbol version that no library in the binary's load scope defines (or a library it "
       "loads that cannot load)",
       "binaries"},
      {"WC515", S::error,
       "PyTorch ABI: a binary on torch's unstable C++ ABI requires a torch range wider than one minor release, or a "
       "stable-ABI binary admits a torch older than its newest shim",
       "binaries"},
      {"WC516", S::warning, "two copies of one runtime (libgomp, libgfortran, ...) load into one process", "binaries"},
      {"WC517", S::error,
       "a Requires-Dist excludes the version of every wheel of that project the run installs with the wheel (pip "
       "refuses the set)",
       "binaries"},
      {"WC601", S::error, "CUDA variant differs from the CUDA runtime the binaries link", "binaries"},
      {"WC602", S::error, "required SASS architecture missing from the fatbins", "binaries"},
      {"WC603", S::error, "required PTX (forward compatibility) missing", "binaries"},
      {"WC604", S::error,
       "architecture the variant's toolkit cannot target, or a family/arch-specific target the policy forbids",
       "binaries"},
      {"WC605", S::warning, "CUDA library bundled in the wheel that the policy expects from a dependency wheel",
       "binaries"},
      {"WC606", S::warning, "CUDA variant the policy knows nothing about (no variant facts, or no requirements for it)",
       "binaries"},
      {"WC701", S::error, "wheel over the policy's size limit", "core"},
      {"WC702", S::error, "size grew past the allowed ratio against the baseline", "release set"},
      {"WC703", S::error, "release matrix incomplete: an expected wheel is missing", "release set"},
      {"WC704", S::error, "unexpected wheel in the release set", "release set"},
      {"WC705", S::error,
       "Version / Requires-Dist / Requires-Python / classifiers / Import-Name differ across the release set",
       "release set"},
      {"WC706", S::error, "forbidden content (e.g. __pycache__, static archives, tests)", "core"},
      {"WC707", S::error,
       "CUDA variant (local version), Requires-Dist pins and GPU code disagree across the set, or a wheel's variant "
       "differs from the pinned wheel it follows (release.variant_follows: torchvision from torch)",
       "release set"},
      {"WC708", S::error,
       "nightly (.devYYYYMMDD) older than the policy's release.max_nightly_age_days (off unless set)", "release set"},
      {"WC710", S::error,
       "against the baseline: GPU code dropped, a device that could run a binary's kernels no longer can",
       "release set"},
      {"WC711", S::error,
       "against the baseline: exported names removed from a library other wheels link against (a warning for other "
       "libraries)",
       "release set"},
      {"WC712", S::error,
       "against the baseline: platform floor raised (platform tag, GLIBC, macOS minos, Requires-Python; a warning "
       "where the tag allows it, and for GLIBCXX/CXXABI)",
       "release set"},
      {"WC713", S::error,
       "against the baseline: the release matrix shrank (a python/platform/variant has no wheel now)", "release set"},
      {"WC714", S::warning, "against the baseline: Requires-Dist added, removed or changed", "release set"},
      {"WC715", S::error, "against the baseline: an entry point or top-level import name removed", "release set"},
      {"WC716", S::error, "against the baseline: a bundled library downgraded", "release set"},
      {"WC720", S::error,
       "sdist: a field PKG-INFO does not mark Dynamic differs from the wheels of its version (PEP 643)", "release set"},
      {"WC721", S::error, "sdist: file name not {normalized_name}-{version}.tar.gz, or not PKG-INFO's (PEP 625)",
       "core"},
      {"WC722", S::error,
       "sdist: PKG-INFO missing, unreadable, or without Name and Version; or Metadata-Version before 2.2 where "
       "sdist.require_static_metadata asks for static metadata",
       "core"},
      {"WC801", S::error,
       "variant label and variant.json disagree (a label without variant.json or the reverse, 'variants' not exactly "
       "the label, properties on 'null' or none on another label)",
       "core"},
      {"WC802", S::error,
       "variant.json structure: unknown $schema, key or value patterns, empty or duplicate lists, namespaces outside "
       "default-priorities, providers, keys a schema removed (0.x drafts: a warning)",
       "core"},
      {"WC803", S::error,
       "variant property outside its provider's catalogue, or several values for a single-valued feature", "core"},
      {"WC804", S::error,
       "declared GPU or CPU property the binaries do not back (sm_arch without SASS/PTX, CUDA lower bound vs runtime, "
       "pins and PTX ISA, x86-64 level, ROCm runtime)",
       "binaries"},
      {"WC805", S::warning,
       "GPU code no declared variant property selects (SASS for a compute capability nobody picks)", "binaries"},
      {"WC806", S::error,
       "variants across a release: one label with two property sets, inconsistent default-priorities, an index "
       "-variants.json that is not the union of the wheels' declarations",
       "release set"},
      {"WC901", S::error,
       "SBOM document invalid for its format (required fields and types, unreadable, over the limits); a newer "
       "version than known warns, unknown formats are a note",
       "sbom"},
      {"WC902", S::warning,
       "SBOM lacks what PEP 770 asks (creation time, tool, a primary component that is this package, versions and "
       "identifiers, components reachable from the primary)",
       "sbom"},
      {"WC903", S::warning,
       "bundled native library not declared by any SBOM component (coverage; an error with sbom.require_coverage, "
       "and without any SBOM with sbom.require)",
       "sbom"},
      {"WC904", S::error,
       "SBOM claim contradicted by the wheel (a file hash, auditwheel's file_name qualifier, a version the library's "
       "file name says; absent components warn)",
       "sbom"},
      {"WC905", S::warning, "SBOM not reproducible (absolute build paths; a random serial number when the policy asks)",
       "sbom"},
      {"WC906", S::error, "one bundled library (by its graft hash), two identities across the wheels of a run",
       "release set"},
      {"WC911", S::error,
       "a PEP 740 attestation does not verify against the pinned Sigstore trust root (the step is named: statement, "
       "signature, certificate, sct, log entry, inclusion proof, checkpoint, signed entry timestamp)",
       "provenance"},
      {"WC912", S::error, "the file was published by another publisher than the policy's provenance.publisher",
       "provenance"},
      {"WC913", S::error, "no PEP 740 attestation beside the file where the policy requires one (provenance.require)",
       "provenance"},
      {"WC914", S::error,
       "across the run, one project's files published by more than one publisher, or some not attested while others "
       "are",
       "release set"},
      {"WC915", S::error,
       "against --baseline: a file whose counterpart had verified provenance has none now, or another publisher",
       "release set"},
      {"WC916", S::warning, "the pinned Sigstore trust root is older than provenance.max_root_age_days", "provenance"},
  };
  return rules;
}

const RuleInfo* find_rule(std::string_view id, std::span<const RuleInfo> catalogue) {
  for (const auto& r : catalogue)
    if (id == r.id) return &r;
  return nullptr;
}

}  // namespace wc
