// Binary fixtures written by small builders (no Apple or Microsoft toolchain, no cross compiler
// here): thin and fat Mach-O, PE32+ with imports, minimal ELF of any class and byte order, and
// fatbin containers laid out per docs/DESIGN.md. Used by the tests and by the fuzz seeds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wc::testing {

// Thin 64-bit Mach-O: LC_BUILD_VERSION (minos as xxxx.yy.zz nibbles), LC_LOAD_DYLIB per dylib, one LC_RPATH.
std::vector<uint8_t> macho_thin(uint32_t cputype, uint32_t minos, const std::vector<std::string>& dylibs,
                                const std::string& rpath,
                                uint32_t platform = 1);  // LC_BUILD_VERSION platform (1 macOS, 2 iOS)
// The same (macOS 11, libSystem) with a symbol table: `defined` exported, each of `undefined`
// imported, plus one weak reference (`weakly_bound`) that is optional.
std::vector<uint8_t> macho_thin_with_symbols(uint32_t cputype, const std::vector<std::string>& undefined,
                                             const std::string& defined);
// A thin arm64 dylib (or bundle, with no install name) as a recent ld64 lays out what dyld binds:
// LC_DYLD_CHAINED_FIXUPS' import table (format 1: {ordinal, weak, name}) and LC_DYLD_EXPORTS_TRIE.
// `dylibs` become LC_LOAD_DYLIB in order (ordinal 1 is the first), `rpath` one LC_RPATH.
struct ChainedImport {
  std::string name;  // "_foo"
  int ordinal;       // 1.., 0 self, -1 main executable, -2 flat lookup
  bool weak = false;
};
std::vector<uint8_t> macho_chained(const std::string& install_name, const std::vector<std::string>& dylibs,
                                   const std::string& rpath, const std::vector<ChainedImport>& imports,
                                   const std::vector<std::string>& exports);
// Fat (universal) file from (cputype, thin image) pairs.
std::vector<uint8_t> macho_fat(const std::vector<std::pair<uint32_t, std::vector<uint8_t>>>& slices);
// PE32+ with one .idata section importing `dlls`.
std::vector<uint8_t> pe_image(uint16_t machine, const std::vector<std::string>& dlls);
// The same with a `.nv_fatb` section of `fatbin` (padded to `pad` bytes) before .idata and 2 MiB of
// resources after it: the import table (its DLL names 1 KiB apart) lies in the middle of a large
// file, and the sections run exactly to its end.
std::vector<uint8_t> pe_image_with_fatbin(uint16_t machine, const std::vector<std::string>& dlls,
                                          const std::vector<uint8_t>& fatbin, uint32_t pad);
// PE32+ importing names from DLLs ({dll, {names}}); `ordinal` adds an import by ordinal to each.
std::vector<uint8_t> pe_image_importing(uint16_t machine,
                                        const std::vector<std::pair<std::string, std::vector<std::string>>>& imports,
                                        bool ordinal = false);
// A shared object needing libc.so.6 (GLIBC_2.0, GLIBC_2.4) and libfoo.so.1, soname libtiny.so.2,
// RUNPATH $ORIGIN/../lib.
std::vector<uint8_t> tiny_elf(bool is64, bool big, uint16_t machine);

struct SynthEntry {
  uint16_t kind;  // 1 PTX, 2 SASS
  uint32_t sm;
  uint64_t flags = 0x11;
  uint16_t major = 1, minor = 8;
  size_t payload = 64;
  std::string text = "";  // written at the start of the payload (e.g. a toolkit note)
};
// One fatbin container (16-byte header, 64-byte entry headers).
std::vector<uint8_t> synth_container(const std::vector<SynthEntry>& entries);

}  // namespace wc::testing
