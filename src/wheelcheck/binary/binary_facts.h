// Facts about one native binary inside a wheel (ELF, Mach-O, PE) and the GPU code it carries.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "binary/dynamic_symbols.h"
#include "binary/hip_bundle.h"
#include "binary/mangled.h"

namespace wc {

struct FatbinEntry {
  enum Kind { ptx = 1, sass = 2 };
  Kind kind = sass;
  uint32_t sm = 0;                                // 90, 100, 120
  std::string suffix;                             // "", "a" (arch-specific) or "f" (family)
  uint16_t version_major = 0, version_minor = 0;  // PTX ISA version for PTX entries
  std::string compression;                        // "none", "lz4", "zstd"
  uint64_t payload_size = 0, uncompressed_size = 0;
  uint64_t flags = 0;
  uint64_t offset = 0;               // of the entry header, in the binary
  size_t container = 0;              // index into FatbinFacts::container_ranges (one translation unit's kernels)
  std::optional<uint32_t> cubin_sm;  // decoded from the cubin's e_flags when readable
  std::string toolkit;               // CUDA release that produced it, when the payload says (uncompressed)
  std::optional<bool> has_kernels;   // a whole uncompressed cubin read: does it hold any kernel?
  std::string name() const;          // sm_90a / compute_120
};

struct FatbinFacts {
  size_t containers = 0;
  std::vector<std::pair<uint64_t, uint64_t>> container_ranges;  // (offset, size) in the binary
  std::vector<FatbinEntry> entries;
  std::vector<std::string> sass() const;  // sorted unique names
  // Containers that hold code: not those whose every entry is a cubin known to have no kernels.
  bool container_has_code(size_t container) const;
  std::vector<std::string> ptx() const;
  std::string newest_toolkit() const;
  bool empty() const { return entries.empty(); }
};

// One symbol dyld binds for a Mach-O slice: its library ordinal names the load command (two-level
// namespace: 1 = the first dylib), or a special lookup.
struct MachOImport {
  enum : int { self = 0, main_executable = -1, flat_lookup = -2, weak_lookup = -3 };
  std::string name;   // as in the tables: "_foo" for C's foo
  int ordinal = 0;    // 1..dylibs.size(), or one of the special values
  bool weak = false;  // a weak import: dyld binds it to null when no image defines it
};

// A Mach-O symbol's C name: the table's name without the '_' the compiler puts before it ("_foo"
// -> "foo"; "__ZN3c106detail..." -> "_ZN3c106detail...", the Itanium mangling).
inline std::string_view macho_c_name(std::string_view raw) { return raw.starts_with('_') ? raw.substr(1) : raw; }

struct MachOSlice {
  std::string arch;  // x86_64, arm64, i386, ...
  uint32_t cputype = 0;
  std::string minos, sdk;  // "11.0"; empty if absent
  int minos_major = 0, minos_minor = 0;
  // LC_BUILD_VERSION platforms (1 macOS, 2 iOS, 6 Mac Catalyst, 7 iOS simulator, ...): a zippered
  // library has two.
  std::vector<uint32_t> build_platforms;
  std::vector<std::string> dylibs, rpaths;
  std::vector<std::string> weak_dylibs;        // LC_LOAD_WEAK_DYLIB names (also in dylibs): dyld goes on without them
  std::string install_name;                    // LC_ID_DYLIB ("@rpath/libc10.dylib"); empty for a bundle
  std::vector<std::string> reexported_dylibs;  // LC_REEXPORT_DYLIB names: their exports are this image's too
  // What dyld binds (chained fixups' import table, else the bind and lazy-bind opcodes; each name
  // and ordinal once) and the names the image exports (its export trie; sorted). Read only when
  // the tables are within bounds and readable.
  std::vector<MachOImport> imports;
  std::vector<std::string> exports;
  bool imports_read = false, exports_read = false;
  // Kept for the install-set rules alone (keep_for_install_sets): the exports as the sorted 64-bit
  // hashes of their names (DynamicSymbols::hash) and the outer namespaces they define, `exports`
  // emptied.
  std::vector<uint64_t> export_hashes;
  std::vector<std::string> hashed_namespaces;
  bool exports_hashed = false;
  bool exports_name(std::string_view name) const;  // from whichever it holds
  // The outermost C++ namespaces of the exported names ("c10" for __ZN3c104gone...), sorted, each once.
  std::vector<std::string> export_namespaces() const;
  void hash_exports();
};

struct BinaryFacts {
  std::string path;    // archive entry name
  std::string format;  // elf, macho, pe
  std::string arch;    // normalised: x86_64, aarch64, i686, arm64, amd64, ...
  // ELF
  int elf_class = 0;
  std::string endian;
  uint16_t machine = 0;
  std::string elf_type;  // exec, dyn, rel, core
  uint8_t osabi = 0, abiversion = 0;
  std::string interpreter, soname;
  std::vector<std::string> needed, rpath, runpath;
  std::map<std::string, std::vector<std::string>> version_needs;  // library -> GLIBC_2.17, ...
  std::vector<std::string> version_defs;
  // Undefined, non-weak: Mach-O undefined externals (without the leading underscore), PE imports by
  // name from the Python DLLs. An ELF file's are in `symbols`, never copied: read them all through
  // imported_names().
  std::vector<std::string> undefined_symbols;
  bool undefined_symbols_read = false;
  // ELF: the whole .dynsym with its versions, exports indexed (WC514 binds imports to them);
  // shared between copies of these facts. Null when the file has no dynamic symbol table.
  std::shared_ptr<const DynamicSymbols> symbols;
  // Defined names ld.so cannot reach through the object's GNU hash table (a chain hash that lies, a
  // bloom bit missing): left out of `symbols`' exports; the count and the first few.
  size_t unreachable_exports = 0;
  std::vector<std::string> unreachable_shown;
  // Defined global symbols of .dynsym that make an importable module: PyInit_* (and PEP 793's
  // PyModExport_*); read with the undefined ones.
  std::vector<std::string> module_inits;
  // Names in .dynstr by the libstdc++ string/list ABI they use, per outermost namespace (WC512).
  CxxAbiCounts cxx_abi;
  bool cxx_abi_read = false;
  // Python C-API names imported from python3.dll / python3XY.dll (PE), by DLL as the import
  // directory names it (WC511 on Windows); the same names are in undefined_symbols.
  std::map<std::string, std::vector<std::string>> python_dll_imports;
  std::optional<unsigned> x86_isa_level;  // 1 = baseline, 2..4 = x86-64-vN
  bool exec_stack = false;
  std::string libc;  // glibc, musl or ""
  // Mach-O
  std::vector<MachOSlice> slices;
  // PE
  std::vector<std::string> dlls;
  // Names imported from each other DLL (WC514; the Python DLLs' are in python_dll_imports), an
  // import by ordinal as "#N", and the names the file exports, with "#N" for each ordinal it
  // exports. Delay-loaded imports apart: Windows binds them at the first call.
  std::map<std::string, std::vector<std::string>> dll_imports, dll_delay_imports;
  std::vector<std::string> pe_exports;
  // Exports that forward to another DLL's: name (or "#N") -> "OTHER.name" / "OTHER.#N".
  std::vector<std::pair<std::string, std::string>> pe_forwarders;
  bool pe_exports_read = false;
  // GPU code
  FatbinFacts fatbin;
  HipFacts hip;                       // AMD: the targets of the first offload bundle in .hip_fatbin
  std::string cuda_toolkit;           // "13.0": newest CUDA release named in its uncompressed cubins/PTX
  std::vector<std::string> errors;    // WC508 error: a structure the loader (or the CUDA driver) uses is broken
  std::vector<std::string> warnings;  // WC508 warning: a structure the loader ignores (notes, section headers)
  // Only the headers at the start of the file were read (--depth metadata): dynamic section,
  // symbol versions, imports beyond the prefix and GPU code are unknown, not absent.
  bool headers_only = false;

  // Newest needed version per prefix (GLIBC, GLIBCXX, CXXABI, GCC), e.g. {"GLIBC": "2.28"}.
  std::map<std::string, std::string> max_symbol_versions() const;
};

// The names a binary imports, undefined and not weak, each once, in table order: an ELF file's
// from its dynamic symbol table (views of its one .dynstr copy), a Mach-O or PE file's from
// undefined_symbols. The views live as long as `b`'s facts.
std::vector<std::string_view> imported_names(const BinaryFacts& b);

nlohmann::json binary_to_json(const BinaryFacts& b);
// "elf", "macho", "pe", "fatbin" (a bare NVIDIA fatbin file) or "" from a file's first bytes
// (at least 64 when the file has them; no byte past the 64th is read, so any longer first piece
// gives the same answer).
std::string sniff_binary(const uint8_t* p, size_t n);
// The same for an entry named `name`: a universal Mach-O header (0xcafebabe) whose slice count is
// implausible is still "macho" when the name is a native library's (a Java class file shares the
// magic, never the name), so a damaged header is a binary that could not be checked, not text.
std::string sniff_binary(const uint8_t* p, size_t n, std::string_view name);
// Architecture names in numeric order (sm_75 < sm_80 < sm_100 < sm_100a), each once.
std::vector<std::string> sorted_arch_names(const std::vector<std::string>& names);
// Dotted version compare ("2.17" < "2.28"); non-numeric parts compare as text.
int compare_dotted(const std::string& a, const std::string& b);

// Sets cuda_toolkit from the fatbin entries, once they are selected.
void settle_gpu_facts(BinaryFacts& b);

// Parsers over a complete in-memory image (tests, tools); results land in `out`, errors in out.errors.
void parse_elf_image(const uint8_t* p, size_t n, BinaryFacts& out);
void parse_binary_image(const uint8_t* p, size_t n, BinaryFacts& out);  // sniffs the format

}  // namespace wc
