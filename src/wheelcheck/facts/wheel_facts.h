// Everything extracted from one wheel. Extraction never decides; rules read only this.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/sdist.h"
#include "io/zip_index.h"
#include "provenance/sigstore.h"
#include "util/view_map.h"
#include "wheel/filename.h"
#include "wheel/metadata.h"
#include "wheel/sbom.h"
#include "wheel/variant.h"

namespace wc {

struct BinaryFacts;    // binary/binary_facts.h
class DynamicSymbols;  // binary/dynamic_symbols.h

struct EntryFacts {
  std::string name;
  EntryKind kind = EntryKind::file;
  uint32_t unix_mode = 0;
  uint16_t method = 0;
  uint64_t size = 0;  // declared (central directory)
  uint64_t compressed_size = 0;
  uint64_t bytes_read = 0;
  std::string sha256;                                // RECORD form; empty when not fully read
  std::map<std::string, std::string> other_digests;  // sha384/sha512 when RECORD asks for them
  std::string read_error;                            // libarchive's word on this entry (CRC, truncation)
  std::string skipped;                               // why the data was not inflated
  std::string magic;                                 // sniff_binary: "elf", "macho", "pe", "fatbin" or ""
  // Versions a well-known library says in its bytes ("3.0.7" from "OpenSSL 3.0.7 1 Nov 2022"), when
  // read whole: what WC904 holds an SBOM's version against (binary/version_strings.h).
  std::vector<std::string> version_strings;
  bool complete() const { return read_error.empty() && skipped.empty() && bytes_read == size; }
};

struct LimitEvent {  // a decompression limit the reader enforced (WC403)
  std::string message;
  std::string entry;
};

// PEP 740 attestations found beside the file (or in --provenance DIR) and what verifying them said.
struct AttestationFacts {
  std::string file;            // the attestation file ("x.whl.publish.attestation", "x.whl.provenance#2")
  nlohmann::json attestation;  // the attestation object until it is verified
  AttestationResult result;
  // From a provenance object's bundle: the publisher it claims, unsigned (its environment is
  // nowhere else).
  std::string unsigned_kind, unsigned_environment;
};
struct ProvenanceFacts {
  bool looked = false;                 // a local file: attestations were looked for beside it
  bool verifying = false;              // a trust root was given: what cannot be read is a finding
  std::vector<std::string> looked_in;  // the names tried, for WC913's message
  std::vector<AttestationFacts> attestations;
  std::vector<std::string> errors;  // attestation files that could not be read (WC911)
  bool verified_any() const;
  std::string unverified_reason;  // attestations found but not verified ("no trust root")
  // A wheel read from an index: its attestations were fetched from the index and matched against
  // the sha256 the index gives for the file (the wheel's own bytes are not hashed as a whole).
  bool digest_from_index = false;
};

struct WheelFacts {
  std::string path;  // as given (file path or URL)
  uint64_t file_size = 0;
  WheelFilename filename;

  std::vector<ZipProblem> unreadable;       // WC404: could not be read at all / stopped
  std::vector<ZipProblem> inconsistent;     // WC404: readable, structurally wrong
  std::vector<ZipProblem> methods;          // WC405
  std::vector<ZipProblem> unsafe_names;     // WC401 from the zip structure (Unicode Path extra fields)
  std::vector<ZipProblem> upload_refusals;  // WC406: what PyPI's upload check refuses, installers read
  // Entries whose compressed data overlaps another's (never inflated) and what they declare.
  uint64_t overlapping_entries = 0, overlapping_bytes = 0;
  std::vector<LimitEvent> limit_events;  // WC403 raised while reading
  bool zip64 = false;
  std::vector<EntryFacts> entries;  // central directory order

  std::vector<std::string> dist_info_dirs;  // top-level *.dist-info/ names (without slash)
  std::string dist_info;                    // the one used
  std::optional<HeaderFile> wheel_file;
  std::optional<HeaderFile> metadata;
  std::optional<RecordFile> record;
  std::vector<std::string> dist_info_read_errors;

  std::vector<BinaryFacts> binaries;
  // Native libraries of the wheel (entry names) that its own Python code names, by the file's stem
  // ("libtorchtext" in torchtext/_extension.py): the package loads them itself (ctypes.CDLL,
  // torch.ops.load_library) before an extension module that needs them by soname.
  std::vector<std::string> python_loaded;
  std::map<std::string, std::string> captured;  // AnalyzeOptions::capture_files that were read
  std::optional<VariantDocument> variant;       // *.dist-info/variant.json (PEP 825), when the wheel has one
  // PEP 770: the documents in *.dist-info/sboms/, in archive order (one that could not be read is
  // a document with the reason in its errors), and how many more there were than are read.
  std::vector<SbomDocument> sboms;
  size_t sboms_not_read = 0;
  // PEP 740 (filled by the check pipeline after analysis: it reads files beside the wheel).
  ProvenanceFacts provenance;
  // Bytes inflated a second time for binary structures no capture plan foresaw (0 for the layouts
  // linkers and patchelf produce; the single pass is measured by this).
  uint64_t reinflated_bytes = 0;
  bool metadata_depth = false;  // read at --depth metadata: entries not hashed, binaries by their headers
  uint64_t bytes_read = 0;      // bytes moved from the file or over HTTP to check it
  // The file's sha256 (hex) when the read hashed every byte in order (a remote full read, an
  // sdist), and the one the index page gave for it (WC407 when both are known and differ).
  std::string content_sha256, index_sha256;
  uint64_t http_requests = 0, http_connections = 0;  // what reading it remotely cost
  // Only the core metadata the index serves beside the wheel was read (PEP 658/714, --depth
  // metadata): no archive, no dist-info layout, no binaries.
  bool from_index_metadata = false;
  // The target was an index page that could not be read: no wheel, no file name to judge; only
  // the reason (WC404) is reported, and it is no member of the release set.
  bool index_page = false;
  bool sdist = false;      // a source distribution (PEP 625): its archive and PKG-INFO, not a wheel's layout
  SdistFacts sdist_facts;  // when sdist

  WheelFacts();
  ~WheelFacts();
  WheelFacts(WheelFacts&&) noexcept;
  WheelFacts& operator=(WheelFacts&&) noexcept;

  bool readable() const { return unreadable.empty(); }
  // By name (the first entry of that name), through an index: rules look entries up per RECORD row
  // and per binary, so a linear scan would make a check quadratic in the entry count.
  const EntryFacts* find_entry(std::string_view name) const;
  // Whether no two entries share a name, as the name index knows it (false when not indexed): then
  // find_entry(entries[i].name) is &entries[i] for every i.
  bool names_distinct() const { return !entries.empty() && entry_index_.size() == entries.size(); }
  // Rebuilds the name index after `entries` changed (the analyzer calls it; so do tests that
  // assemble facts by hand).
  void reindex();
  // Whether the wheel installs a file at `path`: relative to site-packages (install_path()), or
  // "<data>/x" for what the data scheme installs into the environment's prefix.
  // Built on first use (only the library-resolution rules ask), once, thread-safely.
  bool installs(const std::string& path) const;
  // A run's spill file (facts/spill.h) parks the entries (with the name index and what installs()
  // built from them) and brings them back unchanged. installs() asked while they are parked throws
  // std::logic_error: an answer from no entries would be wrong, so it is never given.
  void park_entries();
  void unpark_entries(std::vector<EntryFacts> e);

 private:
  struct InstallPaths;
  // Views into entries[i].name: valid while `entries` is not resized (moving the facts keeps the
  // elements where they are); anything that adds entries calls reindex().
  ViewMap<size_t> entry_index_;
  std::unique_ptr<InstallPaths> install_paths_;
  bool entries_parked_ = false;
};

// Empties what only the rules that read a wheel alone need, once they have run (judge_alone): the
// entries' digests, errors and version strings, RECORD, WHEEL, METADATA's body (the description),
// the SBOMs, captured files, the variant document, the archive's problems, the attestations, and
// the binaries' GPU code, C++ ABI counts and Python DLL imports. What an install set reads of a wheel stays
// (judge_in_set, the install-set index, --resolve-deps, an sdist's agreement): its name, path, METADATA and dist-info,
// its entries' names and kinds, its binaries' loader facts and symbol tables (slimmed: imports by
// name, definitions by their names' hashes, DynamicSymbols::slimmed; Mach-O exports by their
// names' hashes and the namespaces they define, MachOSlice::hash_exports). A run of several wheels
// then parks each wheel's entries and binaries in its spill file (facts/spill.h) until a set that
// holds the wheel is judged.
// `slimmed`: slimmed_symbols(f), when it was made beforehand (on another thread while the facts
// were still read whole); empty, it is made here.
void keep_for_install_sets(WheelFacts& f, std::vector<std::shared_ptr<const DynamicSymbols>> slimmed = {});
// Each binary's symbol table slimmed for the install-set rules (null where it has none), in
// f.binaries' order. It only reads f.
std::vector<std::shared_ptr<const DynamicSymbols>> slimmed_symbols(const WheelFacts& f);

nlohmann::json facts_to_json(const WheelFacts& f);
// An sdist's facts: its container, entries, PKG-INFO's fields and which of them are Dynamic.
nlohmann::json sdist_facts_to_json(const WheelFacts& f);

// What pip and pypa/installer write for the wheel: each regular file's install path
// (InstallTarget::key(): site-packages paths as they are, `<scripts>/x`, `<headers>/x`, `<data>/x`)
// -> the entry and its sha256 (RECORD form; empty when it was not read whole). Left out:
// directories, the dist-info RECORD (installers write their own), `.data` entries no installer
// places (WC102 refuses the wheel). Two entries at one path: the later one. The differential
// harness (tests/installer_test.cc) compares this with what zipfile + installer and libarchive do.
struct InstalledFile {
  std::string entry;
  std::string sha256;
};
std::map<std::string, InstalledFile> install_map(const WheelFacts& f);

}  // namespace wc
