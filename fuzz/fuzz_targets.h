// One entry point per parser of untrusted bytes or text. libFuzzer drives them (fuzz_main.cc, one
// executable per target, `make fuzz`); the regression corpus in fuzz/corpus/ is replayed through
// the same functions by a CTest in every build, sanitizers or not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wc::fuzz {

using Target = void (*)(const uint8_t* data, size_t size);

struct NamedTarget {
  const char* name;
  Target fn;
};

void zip(const uint8_t* d, size_t n);       // a whole wheel: zip index, streaming, dist-info, binaries, rules
void filename(const uint8_t* d, size_t n);  // wheel file names, tags, platform classification, name rules
void metadata(const uint8_t* d, size_t n);  // METADATA as a header file, the METADATA rules
void record(const uint8_t* d, size_t n);    // RECORD as CSV
void wheel(const uint8_t* d, size_t n);     // WHEEL as a header file, the WHEEL rules
void version(const uint8_t* d, size_t n);   // PEP 440 versions and specifier sets
void elf(const uint8_t* d, size_t n);       // ELF images
void macho(const uint8_t* d, size_t n);     // Mach-O (thin and fat)
void pe(const uint8_t* d, size_t n);        // PE
void fatbin(const uint8_t* d, size_t n);    // fatbin containers, fed in chunks of varying size
void policy(const uint8_t* d, size_t n);    // policy JSON (schema validation and loading)
void index(const uint8_t* d, size_t n);     // PEP 503 HTML / PEP 691 JSON index pages
// Differential: the ISA-L fast path and libarchive read every entry of a zip to the same bytes
// (or both find a fault); the fast path never yields more than an entry declares.
void inflate(const uint8_t* d, size_t n);
// Differential: a binary's facts captured while it streams past (in chunks the first byte picks,
// with a small retention cap, re-reads served from the input) equal the whole-image parse.
void capture(const uint8_t* d, size_t n);

// Differential (issue 28): what wheelcheck's index says a wheel installs equals what libarchive's
// seekable and streaming readers give, unless wheelcheck refuses the wheel. The input is
// "WHEEL-FILENAME\n" and the archive's bytes (no newline in the first 200 bytes: the whole input is
// the archive, named fuzz-1.0-py3-none-any.whl). A difference aborts (a crash for libFuzzer).
void installer(const uint8_t* d, size_t n);
// The installer target's input for an archive called `filename`.
std::vector<uint8_t> installer_input(const std::string& filename, const std::vector<uint8_t>& zip);

// The parsers added last (issue 49): a SBOM document (CycloneDX / SPDX 2 / SPDX 3) and the SBOM
// rules over it in a wheel; an attestation file's text (bundles or one attestation) verified against
// an empty trust root; a Sigstore trusted root; a shard report through merge (and the set rules);
// release-set members (a report's "release" objects) through the release-set rules.
void sbom(const uint8_t* d, size_t n);
void attestation(const uint8_t* d, size_t n);
void trust_root(const uint8_t* d, size_t n);
void shard(const uint8_t* d, size_t n);
void release_set(const uint8_t* d, size_t n);

// An sdist (issue 50): tar, tar.gz or zip bytes through libarchive (names, links, sizes, PKG-INFO),
// then the sdist rules. Limits are small so that size and count guards are reached.
void sdist(const uint8_t* d, size_t n);

// wheelsmoke --cases documents: every suite's loader (validation, size caps, unknown keys).
void cases(const uint8_t* d, size_t n);

const std::vector<NamedTarget>& all_targets();

}  // namespace wc::fuzz
