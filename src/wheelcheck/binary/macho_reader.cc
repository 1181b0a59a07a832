#include "binary/macho_reader.h"

#include <algorithm>
#include <unordered_set>

#include "binary/macho_dyld_info.h"
#include "util/budget.h"

namespace wc {
namespace {

constexpr uint32_t MH_MAGIC = 0xfeedface, MH_MAGIC_64 = 0xfeedfacf, FAT_MAGIC = 0xcafebabe, FAT_MAGIC_64 = 0xcafebabf;
constexpr uint32_t LC_LOAD_DYLIB = 0xc, LC_LOAD_WEAK_DYLIB = 0x80000018, LC_REEXPORT_DYLIB = 0x8000001f,
                   LC_LAZY_LOAD_DYLIB = 0x20, LC_LOAD_UPWARD_DYLIB = 0x80000023, LC_RPATH = 0x8000001c,
                   LC_ID_DYLIB = 0xd, LC_VERSION_MIN_MACOSX = 0x24, LC_BUILD_VERSION = 0x32, LC_SYMTAB = 0x2,
                   LC_DYSYMTAB = 0xb, LC_DYLD_INFO = 0x22, LC_DYLD_INFO_ONLY = 0x80000022,
                   LC_DYLD_EXPORTS_TRIE = 0x80000033, LC_DYLD_CHAINED_FIXUPS = 0x80000034;
// Symbol tables larger than this are not read (a bound on what one binary may make the reader keep).
constexpr uint64_t kMaxSymbolBytes = 8u << 20, kMaxStringBytes = 32u << 20;
constexpr uint32_t kMaxSlices = 32, kMaxCommands = 1u << 16;
// dyld's tables larger than this are not read: binds and exports stay unknown (not judged).
constexpr uint64_t kMaxDyldTableBytes = 64u << 20;

std::string xyz_version(uint32_t v, int* major = nullptr, int* minor = nullptr) {
  if (major) *major = static_cast<int>(v >> 16);
  if (minor) *minor = static_cast<int>((v >> 8) & 0xff);
  std::string s = std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xff);
  if (v & 0xff) s += "." + std::to_string(v & 0xff);
  return s;
}

// lc_str: an offset from the start of the load command to a NUL-terminated string inside it.
std::string lc_string(const Cursor& cmd, uint32_t off) {
  if (off >= cmd.size()) throw ParseError("load command string offset out of range", cmd.offset());
  std::string_view s(reinterpret_cast<const char*>(cmd.data().data()) + off, cmd.size() - off);
  return std::string(s.substr(0, s.find('\0')));
}

struct SymbolTables {
  uint32_t symoff = 0, nsyms = 0, stroff = 0, strsize = 0;
  bool dysym = false;
  uint32_t iundef = 0, nundef = 0;
};

// Undefined external symbols (N_UNDF | N_EXT, not weak references), without the leading
// underscore of C names: what the dynamic loader (or, with -undefined dynamic_lookup, the
// interpreter loading the extension) must supply. LC_DYSYMTAB narrows the walk to the undefined
// range. Offsets are relative to the slice. With `plan`, only the ranges to read are added there.
// False when the tables are over the bounds (not read).
bool read_undefined(const SparseFile& f, uint64_t base, uint64_t size, bool is64, Endian e, const SymbolTables& t,
                    std::vector<std::string>& out, std::vector<ByteRange>* plan) {
  uint64_t entsize = is64 ? 16 : 12;
  uint64_t first = t.dysym ? t.iundef : 0, count = t.dysym ? t.nundef : t.nsyms;
  if (first > t.nsyms || count > t.nsyms - first)
    throw ParseError("LC_DYSYMTAB's undefined range runs past LC_SYMTAB", base);
  uint64_t sym_at = checked_add(base, checked_add(t.symoff, checked_mul(first, entsize)));
  uint64_t sym_len = checked_mul(count, entsize), str_at = checked_add(base, t.stroff);
  if (checked_add(t.symoff, checked_mul(t.nsyms, entsize)) > size || uint64_t(t.stroff) + t.strsize > size)
    throw ParseError("symbol table runs past the slice", base);
  if (sym_len > kMaxSymbolBytes || t.strsize > kMaxStringBytes) return false;
  if (count == 0) return true;
  if (plan) {
    plan->push_back({sym_at, sym_len});
    plan->push_back({str_at, t.strsize});
    return false;
  }
  f.require({{sym_at, sym_len}, {str_at, t.strsize}});
  Cursor syms = f.view(sym_at, sym_len, e);
  Cursor strs = f.view(str_at, t.strsize, e);
  std::unordered_set<uint32_t> named;  // each string offset copied once (524k entries can name one string)
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t strx = syms.u32();
    uint8_t type = syms.u8();
    syms.u8();
    uint16_t desc = syms.u16();
    syms.skip(is64 ? 8 : 4);
    if ((type & 0xe0) || (type & 0x0e) != 0 || !(type & 0x01) || (desc & 0x40) || strx == 0 || strx >= t.strsize)
      continue;  // a debugging entry, defined, local, or a weak reference
    if (!named.insert(strx).second) continue;
    std::string_view name = strs.cstr_at(strx);
    if (name.starts_with('_')) name.remove_prefix(1);
    if (name.empty()) continue;
    charge_memory(name.size() + sizeof(std::string), "Mach-O undefined symbol names");
    out.emplace_back(name);
  }
  return true;
}

// __LINKEDIT tables dyld reads, as (offset, size) in the slice.
struct DyldTables {
  ByteRange bind, lazy_bind, exports, chained;
};

// Reads what dyld binds and what the image exports into `s`; with `plan`, only adds the ranges.
void read_dyld_tables(const SparseFile& f, uint64_t base, uint64_t size, Endian e, const DyldTables& t, MachOSlice& s,
                      std::vector<ByteRange>* plan) {
  auto range = [&](const ByteRange& r, const char* what) -> std::optional<ByteRange> {
    if (r.len == 0) return ByteRange{checked_add(base, r.off), 0};
    if (r.off > size || r.len > size - r.off)
      throw ParseError(std::string(what) + " runs past the slice", base + r.off);
    if (r.len > kMaxDyldTableBytes) return std::nullopt;
    return ByteRange{checked_add(base, r.off), r.len};
  };
  auto bind = range(t.bind, "the bind opcodes"), lazy = range(t.lazy_bind, "the lazy-bind opcodes");
  auto chained = range(t.chained, "the chained fixups"), exports = range(t.exports, "the export trie");
  if (plan) {
    for (const auto& r : {bind, lazy, chained, exports})
      if (r && r->len) plan->push_back(*r);
    return;
  }
  auto view = [&](const ByteRange& r) {
    f.require({r});
    return f.view(r.off, r.len, e);
  };
  if (t.chained.len) {
    if (chained) s.imports_read = read_chained_imports(view(*chained), s.dylibs.size(), s.imports);
  } else if (t.bind.len || t.lazy_bind.len) {
    if (bind && lazy) {
      if (bind->len) read_bind_opcodes(view(*bind), false, s.dylibs.size(), s.imports);
      if (lazy->len) read_bind_opcodes(view(*lazy), true, s.dylibs.size(), s.imports);
      s.imports_read = true;
    }
  } else {
    s.imports_read = true;  // dyld binds nothing
  }
  if (exports) {
    if (exports->len) read_export_trie(view(*exports), s.exports);
    std::sort(s.exports.begin(), s.exports.end());
    s.exports.erase(std::unique(s.exports.begin(), s.exports.end()), s.exports.end());
    s.exports_read = true;
  }
}

MachOSlice read_thin(const SparseFile& f, uint64_t base, uint64_t size, BinaryFacts& out,
                     std::vector<ByteRange>* plan = nullptr) {
  Cursor m = f.view(base, std::min<uint64_t>(size, 32));
  uint32_t raw = m.u32();
  Endian e = (raw == MH_MAGIC || raw == MH_MAGIC_64) ? Endian::little : Endian::big;
  m.seek(0);
  m.set_endian(e);
  uint32_t magic = m.u32();
  if (magic != MH_MAGIC && magic != MH_MAGIC_64) throw ParseError("not a Mach-O header", base);
  bool is64 = magic == MH_MAGIC_64;
  MachOSlice s;
  s.cputype = m.u32();
  s.arch = macho_cpu_arch(s.cputype);
  m.u32();
  m.u32();
  uint32_t ncmds = m.u32(), sizeofcmds = m.u32();
  if (ncmds > kMaxCommands) throw ParseError("implausible load command count", base + 16);
  uint64_t hdr = is64 ? 32 : 28;
  if (sizeofcmds > size - std::min(size, hdr)) throw ParseError("load commands run past the slice", base + 20);
  Cursor cmds = f.view(checked_add(base, hdr), sizeofcmds, e);
  std::optional<SymbolTables> tables;
  DyldTables dyld;
  bool linkedit_known = false;  // a dyld info, chained fixups or export trie command
  for (uint32_t i = 0; i < ncmds; ++i) {
    uint64_t at = cmds.pos();
    uint32_t cmd = cmds.u32(), cmdsize = cmds.u32();
    if (cmdsize < 8 || cmdsize % 4)
      throw ParseError("bad load command size " + std::to_string(cmdsize), cmds.offset() - 4);
    Cursor c = cmds.sub(at, cmdsize);
    cmds.seek(checked_add(at, cmdsize));
    c.skip(8);
    switch (cmd) {
      case LC_ID_DYLIB: s.install_name = lc_string(c, c.u32()); break;
      case LC_LOAD_WEAK_DYLIB:
        s.dylibs.push_back(lc_string(c, c.u32()));
        s.weak_dylibs.push_back(s.dylibs.back());
        break;
      case LC_REEXPORT_DYLIB:
        s.dylibs.push_back(lc_string(c, c.u32()));
        s.reexported_dylibs.push_back(s.dylibs.back());
        break;
      case LC_LOAD_DYLIB:
      case LC_LAZY_LOAD_DYLIB:
      case LC_LOAD_UPWARD_DYLIB: s.dylibs.push_back(lc_string(c, c.u32())); break;
      case LC_RPATH: s.rpaths.push_back(lc_string(c, c.u32())); break;
      case LC_VERSION_MIN_MACOSX:
        if (s.minos.empty())
          s.minos = xyz_version(c.u32(), &s.minos_major, &s.minos_minor), s.sdk = xyz_version(c.u32());
        break;
      case LC_BUILD_VERSION: {
        uint32_t platform = c.u32();
        s.build_platforms.push_back(platform);
        if (platform == 1) s.minos = xyz_version(c.u32(), &s.minos_major, &s.minos_minor), s.sdk = xyz_version(c.u32());
        break;
      }
      case LC_SYMTAB:
        if (!tables) tables.emplace();
        tables->symoff = c.u32(), tables->nsyms = c.u32(), tables->stroff = c.u32(), tables->strsize = c.u32();
        break;
      case LC_DYLD_INFO:
      case LC_DYLD_INFO_ONLY:
        linkedit_known = true;
        c.skip(8);  // rebase
        dyld.bind = {c.u32(), c.u32()};
        c.skip(8);  // weak binds: coalesced definitions, not imports
        dyld.lazy_bind = {c.u32(), c.u32()};
        if (!dyld.exports.len) dyld.exports = {c.u32(), c.u32()};
        break;
      case LC_DYLD_CHAINED_FIXUPS: linkedit_known = true, dyld.chained = {c.u32(), c.u32()}; break;
      case LC_DYLD_EXPORTS_TRIE: linkedit_known = true, dyld.exports = {c.u32(), c.u32()}; break;
      case LC_DYSYMTAB:
        if (!tables) tables.emplace();
        c.skip(16);  // local and external defined ranges
        tables->dysym = true, tables->iundef = c.u32(), tables->nundef = c.u32();
        break;
      default: break;
    }
  }
  if (tables && tables->nsyms) {
    bool read = read_undefined(f, base, size, is64, e, *tables, out.undefined_symbols, plan);
    // A fat binary's symbols are known only when every slice's are.
    out.undefined_symbols_read = read && (out.slices.empty() ? true : out.undefined_symbols_read);
  }
  if (linkedit_known) read_dyld_tables(f, base, size, e, dyld, s, plan);
  return s;
}

}  // namespace

std::string macho_cpu_arch(uint32_t cputype) {
  switch (cputype) {
    case 0x01000007: return "x86_64";
    case 0x0100000c: return "arm64";
    case 0x0200000c: return "arm64_32";
    case 7: return "i386";
    case 12: return "arm";
    case 18: return "ppc";
    case 0x01000012: return "ppc64";
    default: return "cpu-" + std::to_string(cputype);
  }
}

bool is_macho_magic(uint32_t be, uint32_t second_be) {
  if (be == 0xfeedface || be == 0xfeedfacf || be == 0xcefaedfe || be == 0xcffaedfe) return true;
  // 0xcafebabe is also Java's class-file magic; there the next word is a version (>= 45).
  return (be == FAT_MAGIC || be == FAT_MAGIC_64) && second_be > 0 && second_be < kMaxSlices;
}

CapturePlan macho_capture_plan(const SparseFile& f) {
  CapturePlan p;
  Cursor h = f.view(0, 8, Endian::big);
  uint32_t magic = h.u32();
  if (magic != FAT_MAGIC && magic != FAT_MAGIC_64) {
    // Thin: the head holds the load commands; the symbol and string tables (__LINKEDIT) come last.
    BinaryFacts probe;
    try {
      read_thin(f, 0, f.size(), probe, &p.ranges);
    } catch (const ParseError&) {
      // read_macho reports it
    }
    return p;
  }
  uint32_t n = h.u32();
  if (n == 0 || n > kMaxSlices) return p;
  bool is64 = magic == FAT_MAGIC_64;
  uint64_t entsize = is64 ? 32 : 20;
  Cursor arches = f.view(8, checked_mul(n, entsize), Endian::big);
  for (uint32_t i = 0; i < n; ++i) {
    arches.skip(8);
    uint64_t off = is64 ? arches.u64() : arches.u32();
    uint64_t size = is64 ? arches.u64() : arches.u32();
    arches.skip(is64 ? 8 : 4);
    if (off >= f.size()) continue;
    p.ranges.push_back({off, std::min({size, uint64_t(1) << 20, f.size() - off})});
    // A slice whose header is already here: its symbol and dyld tables too. One further on keeps
    // its first MiB only (its tables are read when they lie there).
    BinaryFacts probe;
    try {
      read_thin(f, off, std::min(size, f.size() - off), probe, &p.ranges);
    } catch (const ParseError&) {
    } catch (const NeedRanges&) {
    }
  }
  return p;
}

void read_macho(const SparseFile& f, BinaryFacts& out) {
  out.format = "macho";
  Cursor h = f.view(0, 8, Endian::big);
  uint32_t magic = h.u32();
  if (magic != FAT_MAGIC && magic != FAT_MAGIC_64) {
    out.slices.push_back(read_thin(f, 0, f.size(), out));
  } else {
    uint32_t n = h.u32();
    if (n == 0 || n > kMaxSlices)
      throw ParseError("the universal (fat) header claims " + std::to_string(n) + " architectures (at most " +
                           std::to_string(kMaxSlices) + " are plausible); no slice of this binary was checked",
                       4);
    bool is64 = magic == FAT_MAGIC_64;
    uint64_t entsize = is64 ? 32 : 20;
    Cursor arches = f.view(8, checked_mul(n, entsize), Endian::big);
    for (uint32_t i = 0; i < n; ++i) {
      arches.u32();
      arches.u32();
      uint64_t off = is64 ? arches.u64() : arches.u32();
      uint64_t size = is64 ? arches.u64() : arches.u32();
      arches.u32();
      if (is64) arches.u32();
      if (checked_add(off, size) > f.size())
        throw ParseError("fat slice " + std::to_string(i) + " runs past the file", 8 + i * entsize);
      out.slices.push_back(read_thin(f, off, size, out));
    }
  }
  std::sort(out.undefined_symbols.begin(), out.undefined_symbols.end());  // slices share most names
  out.undefined_symbols.erase(std::unique(out.undefined_symbols.begin(), out.undefined_symbols.end()),
                              out.undefined_symbols.end());
  std::string arch;
  for (const auto& s : out.slices) arch += (arch.empty() ? "" : "+") + s.arch;
  out.arch =
      out.slices.size() == 2 && arch.find("x86_64") != std::string::npos && arch.find("arm64") != std::string::npos
          ? "universal2"
          : arch;
}

}  // namespace wc
