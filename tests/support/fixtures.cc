#include "support/fixtures.h"

#include <cstring>
#include <stdexcept>

namespace wc::testing {
namespace {

struct Bytes {
  std::vector<uint8_t> v;
  bool big = false;
  Bytes& u32(uint32_t x) {
    for (int i = 0; i < 4; ++i) v.push_back(static_cast<uint8_t>(big ? x >> (24 - 8 * i) : x >> (8 * i)));
    return *this;
  }
  Bytes& u16(uint16_t x) {
    for (int i = 0; i < 2; ++i) v.push_back(static_cast<uint8_t>(big ? x >> (8 - 8 * i) : x >> (8 * i)));
    return *this;
  }
  Bytes& u64(uint64_t x) {
    return big ? u32(uint32_t(x >> 32)).u32(uint32_t(x)) : u32(uint32_t(x)).u32(uint32_t(x >> 32));
  }
  Bytes& str(const std::string& s, size_t pad_to) {
    v.insert(v.end(), s.begin(), s.end());
    v.resize(v.size() + (pad_to - s.size()), 0);
    return *this;
  }
  Bytes& zeros(size_t n) { return v.resize(v.size() + n, 0), *this; }
};

void put(std::vector<uint8_t>& v, size_t at, const void* p, size_t n) { std::memcpy(v.data() + at, p, n); }

}  // namespace

// Thin 64-bit Mach-O (mach_header_64, then load commands): LC_BUILD_VERSION (platform 1 = macOS,
// minos/sdk as xxxx.yy.zz nibbles), LC_LOAD_DYLIB (dylib_command, name at offset 24), LC_RPATH.
std::vector<uint8_t> macho_thin(uint32_t cputype, uint32_t minos, const std::vector<std::string>& dylibs,
                                const std::string& rpath, uint32_t platform) {
  Bytes cmds;
  cmds.u32(0x32).u32(24).u32(platform).u32(minos).u32(0x000E0000).u32(0);  // LC_BUILD_VERSION, ntools 0
  for (const auto& d : dylibs) {
    uint32_t size = static_cast<uint32_t>((24 + d.size() + 1 + 7) & ~size_t(7));
    cmds.u32(0xc).u32(size).u32(24).u32(0).u32(0x10000).u32(0x10000).str(d, size - 24);
  }
  uint32_t rsize = static_cast<uint32_t>((12 + rpath.size() + 1 + 7) & ~size_t(7));
  cmds.u32(0x8000001c).u32(rsize).u32(12).str(rpath, rsize - 12);
  Bytes h;
  h.u32(0xfeedfacf)
      .u32(cputype)
      .u32(0)
      .u32(6 /* MH_DYLIB */)
      .u32(static_cast<uint32_t>(dylibs.size() + 2))
      .u32(static_cast<uint32_t>(cmds.v.size()))
      .u32(0)
      .u32(0);
  h.v.insert(h.v.end(), cmds.v.begin(), cmds.v.end());
  return h.v;
}

// The same with a symbol table: LC_SYMTAB and LC_DYSYMTAB after the other commands, then nlist_64
// entries (one defined external `_<defined>`, then each undefined external `_<name>`, the first
// of them a weak reference that must not count) and the string table, as ld64 lays them out.
std::vector<uint8_t> macho_thin_with_symbols(uint32_t cputype, const std::vector<std::string>& undefined,
                                             const std::string& defined) {
  std::vector<uint8_t> base = macho_thin(cputype, 0x000B0000, {"/usr/lib/libSystem.B.dylib"}, "@loader_path");
  uint32_t ncmds, sizeofcmds;
  std::memcpy(&ncmds, base.data() + 16, 4);
  std::memcpy(&sizeofcmds, base.data() + 20, 4);
  Bytes strtab;
  strtab.zeros(1);
  std::vector<uint32_t> strx;
  std::vector<std::string> names{"_" + defined, "_weakly_bound"};
  for (const auto& u : undefined) names.push_back("_" + u);
  for (const auto& n : names) strx.push_back(static_cast<uint32_t>(strtab.v.size())), strtab.str(n, n.size() + 1);
  const uint32_t nsyms = static_cast<uint32_t>(names.size());
  const uint32_t cmds_end = 32 + sizeofcmds + 24 + 80;
  const uint32_t symoff = (cmds_end + 7) & ~7u, stroff = symoff + nsyms * 16;
  Bytes cmds;
  cmds.u32(0x2).u32(24).u32(symoff).u32(nsyms).u32(stroff).u32(static_cast<uint32_t>(strtab.v.size()));
  cmds.u32(0xb).u32(80).u32(0).u32(0).u32(0).u32(1).u32(1).u32(nsyms - 1).zeros(80 - 32);  // ilocal, iext, iundef
  Bytes syms;
  for (uint32_t i = 0; i < nsyms; ++i) {
    bool undef = i > 0;
    syms.u32(strx[i]).v.push_back(undef ? 0x01 : 0x0f);  // N_EXT (| N_SECT when defined)
    syms.v.push_back(undef ? 0 : 1);
    syms.u16(i == 1 ? 0x40 : 0).u64(undef ? 0 : 0x1000);  // N_WEAK_REF on the first undefined one
  }
  std::vector<uint8_t> out(base.begin(), base.end());
  out.insert(out.end(), cmds.v.begin(), cmds.v.end());
  out.resize(symoff, 0);
  out.insert(out.end(), syms.v.begin(), syms.v.end());
  out.insert(out.end(), strtab.v.begin(), strtab.v.end());
  ncmds += 2, sizeofcmds += 24 + 80;
  std::memcpy(out.data() + 16, &ncmds, 4);
  std::memcpy(out.data() + 20, &sizeofcmds, 4);
  return out;
}

std::vector<uint8_t> macho_chained(const std::string& install_name, const std::vector<std::string>& dylibs,
                                   const std::string& rpath, const std::vector<ChainedImport>& imports,
                                   const std::vector<std::string>& exports) {
  Bytes cmds;
  uint32_t ncmds = 0;
  auto dylib_cmd = [&](uint32_t cmd, const std::string& name) {
    uint32_t size = static_cast<uint32_t>((24 + name.size() + 1 + 7) & ~size_t(7));
    cmds.u32(cmd).u32(size).u32(24).u32(0).u32(0x10000).u32(0x10000).str(name, size - 24);
    ++ncmds;
  };
  cmds.u32(0x32).u32(24).u32(1).u32(0x000B0000).u32(0x000E0000).u32(0), ++ncmds;  // LC_BUILD_VERSION
  if (!install_name.empty()) dylib_cmd(0xd, install_name);
  for (const auto& d : dylibs) dylib_cmd(0xc, d);
  uint32_t rsize = static_cast<uint32_t>((12 + rpath.size() + 1 + 7) & ~size_t(7));
  cmds.u32(0x8000001c).u32(rsize).u32(12).str(rpath, rsize - 12), ++ncmds;
  // dyld_chained_fixups_header, the imports (DYLD_CHAINED_IMPORT), then the symbol strings.
  Bytes names;
  names.zeros(1);
  Bytes table;
  for (const auto& i : imports) {
    uint32_t ord = static_cast<uint8_t>(static_cast<int8_t>(i.ordinal));
    table.u32(ord | (i.weak ? 0x100u : 0u) | static_cast<uint32_t>(names.v.size()) << 9);
    names.str(i.name, i.name.size() + 1);
  }
  Bytes fixups;
  const uint32_t imports_offset = 32, symbols_offset = imports_offset + static_cast<uint32_t>(table.v.size());
  fixups.u32(0).u32(28).u32(imports_offset).u32(symbols_offset).u32(static_cast<uint32_t>(imports.size()));
  fixups.u32(1).u32(0).u32(0);  // format 1, uncompressed symbols; an empty starts_in_image at 28
  fixups.v.insert(fixups.v.end(), table.v.begin(), table.v.end());
  fixups.v.insert(fixups.v.end(), names.v.begin(), names.v.end());
  fixups.v.resize((fixups.v.size() + 7) & ~size_t(7), 0);
  // The export trie: a root whose edges are whole names, each to a leaf {size 2: flags 0, address 0}.
  Bytes trie;
  size_t root = 1 + 1;
  for (const auto& e : exports) root += e.size() + 1 + 2;  // edge, its child offset (2-byte ULEB at most)
  trie.v.push_back(0);
  trie.v.push_back(static_cast<uint8_t>(exports.size()));
  size_t leaf = root;
  for (const auto& e : exports) {
    trie.str(e, e.size() + 1);
    trie.v.push_back(static_cast<uint8_t>(0x80 | (leaf & 0x7f)));
    trie.v.push_back(static_cast<uint8_t>(leaf >> 7));
    leaf += 4;
  }
  for (size_t i = 0; i < exports.size(); ++i) trie.v.insert(trie.v.end(), {2, 0, 0, 0});
  trie.v.resize((trie.v.size() + 7) & ~size_t(7), 0);
  const uint32_t sizeofcmds = static_cast<uint32_t>(cmds.v.size()) + 16 + 16;
  const uint32_t fix_off = (32 + sizeofcmds + 7) & ~7u, trie_off = fix_off + static_cast<uint32_t>(fixups.v.size());
  cmds.u32(0x80000034).u32(16).u32(fix_off).u32(static_cast<uint32_t>(fixups.v.size())), ++ncmds;
  cmds.u32(0x80000033).u32(16).u32(trie_off).u32(static_cast<uint32_t>(trie.v.size())), ++ncmds;
  Bytes h;
  h.u32(0xfeedfacf).u32(0x0100000c).u32(0).u32(install_name.empty() ? 8 : 6).u32(ncmds).u32(sizeofcmds).u32(0).u32(0);
  h.v.insert(h.v.end(), cmds.v.begin(), cmds.v.end());
  h.v.resize(fix_off, 0);
  h.v.insert(h.v.end(), fixups.v.begin(), fixups.v.end());
  h.v.insert(h.v.end(), trie.v.begin(), trie.v.end());
  return h.v;
}

// Fat (universal) header: big-endian fat_header + fat_arch {cputype, subtype, offset, size, align}.
std::vector<uint8_t> macho_fat(const std::vector<std::pair<uint32_t, std::vector<uint8_t>>>& slices) {
  Bytes f;
  f.big = true;
  f.u32(0xcafebabe).u32(static_cast<uint32_t>(slices.size()));
  uint32_t off = 4096;
  std::vector<uint32_t> offs;
  for (const auto& [cpu, data] : slices) {
    f.u32(cpu).u32(0).u32(off).u32(static_cast<uint32_t>(data.size())).u32(12);
    offs.push_back(off);
    off += static_cast<uint32_t>((data.size() + 4095) & ~size_t(4095));
  }
  f.v.resize(off, 0);
  for (size_t i = 0; i < slices.size(); ++i)
    std::memcpy(f.v.data() + offs[i], slices[i].second.data(), slices[i].second.size());
  return f.v;
}

// PE32+: DOS header (e_lfanew at 0x3c), "PE\0\0", COFF header, optional header (magic 0x20b,
// 16 data directories, import directory = #1), one section ".idata" holding the import
// descriptors (20 bytes each, zero-terminated) and the DLL names.
std::vector<uint8_t> pe_image(uint16_t machine, const std::vector<std::string>& dlls) {
  return pe_image_with_fatbin(machine, dlls, {}, 0);
}

std::vector<uint8_t> pe_image_with_fatbin(uint16_t machine, const std::vector<std::string>& dlls,
                                          const std::vector<uint8_t>& fatbin, uint32_t pad) {
  const uint32_t fat_raw = 0x200, fat_rva = 0x1000;
  const uint32_t fat_size = pad ? (std::max<uint32_t>(pad, uint32_t(fatbin.size())) + 0x1ff) & ~0x1ffu : 0;
  const uint32_t sect_rva = pad ? (fat_rva + fat_size + 0xfff) & ~0xfffu : 0x1000, sect_raw = fat_raw + fat_size;
  // With a fatbin (a large file), each DLL name is followed by 1 KiB of hint/name entries, as MSVC
  // lays them out: the names lie far apart.
  const uint32_t stride_pad = pad ? 1024 : 0;
  Bytes idata;
  uint32_t names_at = static_cast<uint32_t>(20 * (dlls.size() + 1));
  std::vector<uint32_t> name_rvas;
  uint32_t cur = names_at;
  for (const auto& d : dlls) {
    name_rvas.push_back(sect_rva + cur);
    cur += static_cast<uint32_t>(d.size() + 1) + stride_pad;
  }
  for (size_t i = 0; i < dlls.size(); ++i)
    idata.u32(sect_rva + 0x800).u32(0).u32(0).u32(name_rvas[i]).u32(sect_rva + 0x800);
  idata.zeros(20);
  for (const auto& d : dlls) idata.str(d, d.size() + 1).zeros(stride_pad);
  const uint32_t idata_size = std::max<uint32_t>(0x900, (static_cast<uint32_t>(idata.v.size()) + 0x1ff) & ~0x1ffu);
  idata.v.resize(idata_size, 0);
  // A large file ends with 2 MiB of resources after .idata, so the imports sit in the middle.
  const uint32_t rsrc_size = pad ? 2u << 20 : 0, rsrc_raw = sect_raw + idata_size,
                 rsrc_rva = (sect_rva + idata_size + 0xfff) & ~0xfffu;
  const uint16_t nsec = pad ? 3 : 1;
  Bytes p;
  p.str("MZ", 2).zeros(0x3c - 2).u32(0x80).zeros(0x80 - 0x40);
  p.str("PE", 2).u16(0).u16(machine).u16(nsec).u32(0).u32(0).u32(0).u16(240).u16(0x2022);
  size_t opt = p.v.size();
  p.u16(0x20b).zeros(106).u32(16);  // NumberOfRvaAndSizes at optional+108
  p.u32(0).u32(0).u32(sect_rva).u32(static_cast<uint32_t>(20 * (dlls.size() + 1)));
  p.zeros(240 - (p.v.size() - opt));
  if (pad) p.str(".nv_fatb", 8).u32(fat_size).u32(fat_rva).u32(fat_size).u32(fat_raw).zeros(16);
  p.str(".idata", 8).u32(idata_size).u32(sect_rva).u32(idata_size).u32(sect_raw).zeros(16);
  if (pad) p.str(".rsrc", 8).u32(rsrc_size).u32(rsrc_rva).u32(rsrc_size).u32(rsrc_raw).zeros(16);
  p.v.resize(fat_raw, 0);
  if (pad) {
    p.v.insert(p.v.end(), fatbin.begin(), fatbin.end());
    p.v.resize(sect_raw, 0);
  }
  p.v.insert(p.v.end(), idata.v.begin(), idata.v.end());
  p.v.resize(p.v.size() + rsrc_size, 0x5a);
  return p.v;
}

// PE32+ whose one .idata section imports names: descriptors, then per DLL its name, its import
// lookup table (8-byte entries; an ordinal entry first when `ordinal` is set, which has no name) and
// hint/name entries.
std::vector<uint8_t> pe_image_importing(uint16_t machine,
                                        const std::vector<std::pair<std::string, std::vector<std::string>>>& imports,
                                        bool ordinal) {
  const uint32_t sect_rva = 0x1000, sect_raw = 0x200, size = 0x1000;
  std::vector<uint8_t> idata(size, 0);
  auto put32 = [&](uint32_t at, uint32_t v) { std::memcpy(idata.data() + at, &v, 4); };
  auto put64 = [&](uint32_t at, uint64_t v) { std::memcpy(idata.data() + at, &v, 8); };
  uint32_t cur = static_cast<uint32_t>(20 * (imports.size() + 1));
  for (size_t i = 0; i < imports.size(); ++i) {
    const auto& [dll, names] = imports[i];
    uint32_t name_at = cur;
    std::memcpy(idata.data() + cur, dll.c_str(), dll.size() + 1);
    cur = (cur + static_cast<uint32_t>(dll.size()) + 1 + 7) & ~7u;
    uint32_t ilt = cur, entries = static_cast<uint32_t>(names.size()) + (ordinal ? 1 : 0);
    cur += 8 * (entries + 1);
    uint32_t k = 0;
    if (ordinal) put64(ilt + 8 * k++, (uint64_t(1) << 63) | 42);
    for (const auto& n : names) {
      put64(ilt + 8 * k++, sect_rva + cur);
      idata[cur] = 0, idata[cur + 1] = 0;  // hint
      std::memcpy(idata.data() + cur + 2, n.c_str(), n.size() + 1);
      cur = (cur + 2 + static_cast<uint32_t>(n.size()) + 1 + 1) & ~1u;
    }
    uint32_t d = static_cast<uint32_t>(20 * i);
    put32(d, sect_rva + ilt), put32(d + 12, sect_rva + name_at), put32(d + 16, sect_rva + ilt);
  }
  if (cur > size) throw std::runtime_error("pe_image_importing: too many imports for one page");
  Bytes p;
  p.str("MZ", 2).zeros(0x3c - 2).u32(0x80).zeros(0x80 - 0x40);
  p.str("PE", 2).u16(0).u16(machine).u16(1).u32(0).u32(0).u32(0).u16(240).u16(0x2022);
  size_t opt = p.v.size();
  p.u16(0x20b).zeros(106).u32(16);
  p.u32(0).u32(0).u32(sect_rva).u32(static_cast<uint32_t>(20 * (imports.size() + 1)));
  p.zeros(240 - (p.v.size() - opt));
  p.str(".idata", 8).u32(size).u32(sect_rva).u32(size).u32(sect_raw).zeros(16);
  p.v.resize(sect_raw, 0);
  p.v.insert(p.v.end(), idata.begin(), idata.end());
  return p.v;
}

// A minimal shared object of any class and byte order, for what gcc here cannot produce (32-bit,
// big-endian). Layout: ELF header, two program headers (PT_LOAD over the file, PT_DYNAMIC),
// .dynstr, .dynamic, .gnu.version_r (one Verneed with two Vernaux), .shstrtab, section headers.
std::vector<uint8_t> tiny_elf(bool is64, bool big, uint16_t machine) {
  std::vector<uint8_t> f;
  auto put = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i) f.push_back(static_cast<uint8_t>(big ? v >> (8 * (n - 1 - i)) : v >> (8 * i)));
  };
  auto word = [&](uint64_t v) { put(v, is64 ? 8 : 4); };
  static const char kDynstr[] = "\0libc.so.6\0libfoo.so.1\0libtiny.so.2\0$ORIGIN/../lib\0GLIBC_2.4\0GLIBC_2.0";
  static const char kShstr[] = "\0.dynstr\0.dynamic\0.gnu.version_r\0.shstrtab";
  const std::string dynstr(kDynstr, sizeof kDynstr), shstr(kShstr, sizeof kShstr);
  auto str = [&](const char* x) { return dynstr.find(x); };
  size_t ehsize = is64 ? 64 : 52, phsize = is64 ? 56 : 32, shsize = is64 ? 64 : 40, dynent = is64 ? 16 : 8;
  size_t ph_off = ehsize, dynstr_off = ph_off + 2 * phsize, dyn_off = (dynstr_off + dynstr.size() + 7) & ~size_t(7);
  size_t ndyn = 9, vn_off = dyn_off + ndyn * dynent, shstr_off = vn_off + 16 + 32,
         sh_off = (shstr_off + shstr.size() + 7) & ~size_t(7);
  size_t total = sh_off + 5 * shsize;
  // ELF header
  f = {0x7f, 'E', 'L', 'F', static_cast<uint8_t>(is64 ? 2 : 1), static_cast<uint8_t>(big ? 2 : 1), 1, 0, 0, 0, 0, 0,
       0,    0,   0,   0};
  put(3, 2), put(machine, 2), put(1, 4), word(0), word(ph_off), word(sh_off), put(0, 4);
  put(ehsize, 2), put(phsize, 2), put(2, 2), put(shsize, 2), put(5, 2), put(4, 2);
  auto phdr = [&](uint32_t type, uint64_t off, uint64_t size, uint32_t flags) {
    put(type, 4);
    if (is64) put(flags, 4);
    word(off), word(off), word(off), word(size), word(size);
    if (!is64) put(flags, 4);
    word(is64 ? 8 : 4);
  };
  phdr(1, 0, total, 4);
  phdr(2, dyn_off, ndyn * dynent, 6);
  f.insert(f.end(), dynstr.begin(), dynstr.end());
  f.resize(dyn_off, 0);
  auto dyn = [&](uint64_t tag, uint64_t val) { word(tag), word(val); };
  dyn(1, str("libc.so.6")), dyn(1, str("libfoo.so.1")), dyn(14, str("libtiny.so.2")), dyn(29, str("$ORIGIN/../lib"));
  dyn(5, dynstr_off), dyn(10, dynstr.size()), dyn(0x6ffffffe, vn_off), dyn(0x6fffffff, 1), dyn(0, 0);
  put(1, 2), put(2, 2), put(str("libc.so.6"), 4), put(16, 4), put(0, 4);           // Verneed
  put(0x0d696914, 4), put(0, 2), put(2, 2), put(str("GLIBC_2.4"), 4), put(16, 4);  // Vernaux 1
  put(0x0d696910, 4), put(0, 2), put(3, 2), put(str("GLIBC_2.0"), 4), put(0, 4);   // Vernaux 2
  f.insert(f.end(), shstr.begin(), shstr.end());
  f.resize(sh_off, 0);
  auto shdr = [&](uint32_t name, uint32_t type, uint64_t off, uint64_t size, uint32_t link, uint32_t info,
                  uint64_t entsize) {
    put(name, 4), put(type, 4), word(type ? 2 : 0), word(off), word(off), word(size), put(link, 4), put(info, 4);
    word(type ? 8 : 0), word(entsize);
  };
  shdr(0, 0, 0, 0, 0, 0, 0);
  shdr(static_cast<uint32_t>(shstr.find(".dynstr")), 3, dynstr_off, dynstr.size(), 0, 0, 0);
  shdr(static_cast<uint32_t>(shstr.find(".dynamic")), 6, dyn_off, ndyn * dynent, 1, 0, dynent);
  shdr(static_cast<uint32_t>(shstr.find(".gnu.version_r")), 0x6ffffffe, vn_off, 48, 1, 1, 0);
  shdr(static_cast<uint32_t>(shstr.find(".shstrtab")), 3, shstr_off, shstr.size(), 0, 0, 0);
  if (f.size() != total) throw std::logic_error("tiny_elf: layout arithmetic is off");
  return f;
}

std::vector<uint8_t> synth_container(const std::vector<SynthEntry>& entries) {
  std::vector<uint8_t> body;
  for (const auto& e : entries) {
    std::vector<uint8_t> h(64 + e.payload, 0);
    uint16_t ver = 0x0101;
    uint32_t hs = 64;
    uint64_t ps = e.payload;
    put(h, 0, &e.kind, 2);
    put(h, 2, &ver, 2);
    put(h, 4, &hs, 4);
    put(h, 8, &ps, 8);
    put(h, 24, &e.minor, 2);
    put(h, 26, &e.major, 2);
    put(h, 28, &e.sm, 4);
    put(h, 40, &e.flags, 8);
    std::memcpy(h.data() + 64, e.text.data(), std::min(e.text.size(), e.payload));
    body.insert(body.end(), h.begin(), h.end());
  }
  // Sized once (GCC 12 at -O3 reports a false -Warray-bounds for growing a 16-byte vector by insert).
  std::vector<uint8_t> c(16 + body.size());
  uint32_t magic = 0xBA55ED50;
  uint16_t version = 1, hsize = 16;
  uint64_t fat = body.size();
  put(c, 0, &magic, 4);
  put(c, 4, &version, 2);
  put(c, 6, &hsize, 2);
  put(c, 8, &fat, 8);
  std::copy(body.begin(), body.end(), c.begin() + 16);
  return c;
}

}  // namespace wc::testing
