#include "binary/elf_reader.h"

#include "binary/fatbin.h"
#include "binary/hip_bundle.h"
#include "binary/mangled.h"
#include "util/budget.h"
#include "util/u32_map.h"

#include <cctype>
#include <set>
#include <unordered_set>

namespace wc {
namespace {

constexpr uint32_t PT_LOAD = 1, PT_DYNAMIC = 2, PT_INTERP = 3, PT_NOTE = 4, PT_GNU_STACK = 0x6474e551;
constexpr uint32_t SHT_NOTE = 7;
constexpr int64_t DT_NULL = 0, DT_NEEDED = 1, DT_STRTAB = 5, DT_STRSZ = 10, DT_SONAME = 14, DT_RPATH = 15,
                  DT_RUNPATH = 29, DT_VERDEF = 0x6ffffffc, DT_VERDEFNUM = 0x6ffffffd, DT_VERNEED = 0x6ffffffe,
                  DT_VERNEEDNUM = 0x6fffffff, DT_HASH = 4, DT_SYMTAB = 6, DT_GNU_HASH = 0x6ffffef5;
// Tags whose value is the address of a table (where .dynsym's neighbours start).
constexpr int64_t kTableTags[] = {DT_HASH,
                                  DT_STRTAB,
                                  7 /* RELA */,
                                  12 /* INIT */,
                                  13 /* FINI */,
                                  17 /* REL */,
                                  23 /* JMPREL */,
                                  36 /* RELR */,
                                  0x6ffffef5 /* GNU_HASH */,
                                  0x6ffffff0 /* VERSYM */,
                                  DT_VERDEF,
                                  DT_VERNEED};
constexpr uint32_t SHT_DYNSYM = 11;
constexpr int64_t DT_VERSYM = 0x6ffffff0;
// While streaming, .dynsym's size is guessed from the table that follows it (section headers come
// last); a guess beyond this is not kept as it streams: the parse, which knows the real size from
// the section headers, reads the table then.
constexpr uint64_t kMaxDynsymGuess = 32u << 20;
constexpr uint32_t NT_GNU_PROPERTY_TYPE_0 = 5, GNU_PROPERTY_X86_ISA_1_NEEDED = 0xc0008002;
constexpr uint64_t kMaxEntries = 1u << 20;
constexpr uint16_t kEmCuda = 190;  // sanity cap on counts taken from the file

struct Header {
  bool is64 = false;
  Endian endian = Endian::little;
  uint16_t type = 0, machine = 0;
  uint64_t phoff = 0, shoff = 0;
  uint32_t flags = 0;
  uint16_t phentsize = 0, phnum = 0, shentsize = 0, shstrndx = 0;
  uint64_t shnum = 0;
};

struct Segment {
  uint32_t type, flags;
  uint64_t offset, vaddr, filesz, memsz, align;
};

struct Section {
  uint32_t name, type;
  uint64_t offset, size, addr;
  uint32_t link, info;
  uint64_t align;
};

class ElfReader {
 public:
  ElfReader(const SparseFile& f, BinaryFacts& out) : f_(f), out_(out) {}

  CapturePlan plan(uint64_t head_cap) {
    header();
    program_headers();
    CapturePlan p;
    p.ranges = first_wave();
    // The section name table: where the section headers say, when they are already here (a second
    // pass); else just before the section headers, where linkers put it (other layouts are found
    // by the capture's scan for the table's own name).
    constexpr uint64_t kWindow = 64 * 1024;
    try {
      section_headers();
      if (auto sh = shstrtab_range()) p.ranges.push_back(*sh);
    } catch (const NeedRanges&) {
      if (h_.shoff && h_.shnum)
        p.ranges.push_back({h_.shoff - std::min(h_.shoff, kWindow), std::min(h_.shoff, kWindow)});
    } catch (const ParseError&) {
    }
    uint64_t first_load_end = 0;
    const Segment* dyn = nullptr;
    for (const auto& s : segs_) {
      if (s.type == PT_LOAD) p.loaded.push_back({s.offset, s.filesz});
      if (s.type == PT_LOAD && !first_load_end) first_load_end = s.offset + s.filesz;
      if (s.type == PT_DYNAMIC) dyn = &s;
    }
    p.retain_until = std::min(std::max<uint64_t>(first_load_end, 1u << 20), head_cap);
    if (!dyn) return p;
    p.release_after = dyn->offset + dyn->filesz;
    // The tables the dynamic section locates lie in the first loaded segment (the head), or, after
    // patchelf, in the segment it added for them, which also holds the dynamic section: keep that
    // segment's bytes before the dynamic section too.
    for (const auto& s : segs_) {
      if (s.type != PT_LOAD || dyn->offset < s.offset || dyn->offset - s.offset >= s.filesz) continue;
      uint64_t from = std::max(s.offset, dyn->offset > head_cap ? dyn->offset - head_cap : 0);
      if (from > p.retain_until) p.region = {from, dyn->offset - from};
    }
    return p;
  }

  // What the ELF header and program headers say alone (a prefix of the file): class, machine,
  // type, executable stack, and the interpreter when its bytes are there.
  void headers_only() {
    header();
    program_headers();
    for (const auto& s : segs_)
      if (s.type == PT_GNU_STACK) out_.exec_stack = (s.flags & 1) != 0;
    try {
      interp_and_stack();
    } catch (const NeedRanges&) {
    }
  }

  // Byte ranges are requested in two waves so a streamed binary needs at most two extra reads:
  // first everything the headers locate (section table, dynamic segment, interpreter, notes),
  // then everything those locate (section names, dynamic strings, version records).
  ElfLayout run() {
    header();
    program_headers();
    f_.require(first_wave());
    loader_ignored("section header table", h_.shoff, [&] { section_headers(); });
    interp_and_stack();
    dynamic();
    ElfLayout layout;
    loader_ignored("section name table", shstrtab_ ? shstrtab_->offset : h_.shoff, [&] {
      const auto found = find_section(".nv_fatbin");  // see find_section: never assigned straight in
      layout.nv_fatbin = found;
    });
    if (layout.nv_fatbin &&
        (layout.nv_fatbin->off > f_.size() || layout.nv_fatbin->len > f_.size() - layout.nv_fatbin->off)) {
      // The containers are still found where they lie (the scan does not need the section), but a
      // size no file can hold is a fault the report names.
      out_.errors.push_back("the .nv_fatbin section claims " + std::to_string(layout.nv_fatbin->len) +
                            " bytes at offset " + std::to_string(layout.nv_fatbin->off) + ", past the end of the " +
                            std::to_string(f_.size()) + "-byte file");
      uint64_t off = std::min(layout.nv_fatbin->off, f_.size());
      layout.nv_fatbin = ByteRange{off, f_.size() - off};
    }
    if (h_.machine == kEmCuda) cubin_entry();
    hip_code();
    loader_ignored("note segment", 0, [&] { isa_level(); });
    out_.libc = libc_flavour();
    return layout;
  }

 private:
  Cursor view(uint64_t off, uint64_t len) const { return f_.view(off, len, h_.endian); }

  // AMD GPU code: the head of .hip_fatbin (its first offload bundle names the library's targets).
  void hip_code() {
    std::optional<ByteRange> hip;
    loader_ignored("section name table", shstrtab_ ? shstrtab_->offset : h_.shoff, [&] {
      const auto found = find_section(".hip_fatbin");  // see find_section
      hip = found;
    });
    if (!hip || !hip->len || hip->off >= f_.size()) return;
    uint64_t len = std::min<uint64_t>({hip->len, kHipBundleHead, f_.size() - hip->off});
    f_.require({{hip->off, len}});
    Cursor c = view(hip->off, len);
    out_.hip = parse_hip_bundle(c.data().data(), static_cast<size_t>(len));
  }

  // Runs a parse step over a structure the dynamic loader never reads for a shared object or
  // executable (section headers, notes): a fault there is reported as a warning that says so, and
  // the rest of the facts still stand. Faults in headers, segments and dynamic tables stay errors.
  template <typename F>
  void loader_ignored(const char* what, uint64_t at, F&& step) {
    try {
      step();
    } catch (const ParseError& e) {
      if (h_.type == 1 /* ET_REL: object files have nothing but sections */) throw;
      out_.warnings.push_back(std::string(what) + (at ? " at file offset " + std::to_string(at) : "") + ": " +
                              e.what() + " (offset " + std::to_string(e.offset()) +
                              "); the dynamic loader does not read it, so loading is unaffected");
    }
  }
  uint64_t word(Cursor& c) const { return h_.is64 ? c.u64() : c.u32(); }

  void header() {
    Cursor id = f_.view(0, 16);
    if (id.u32() != 0x464c457f) throw ParseError("not an ELF file", 0);
    uint8_t cls = id.u8(), data = id.u8();
    id.u8();
    out_.osabi = id.u8();
    out_.abiversion = id.u8();
    if (cls != 1 && cls != 2) throw ParseError("bad ELF class " + std::to_string(cls), 4);
    if (data != 1 && data != 2) throw ParseError("bad ELF data encoding " + std::to_string(data), 5);
    h_.is64 = cls == 2;
    h_.endian = data == 2 ? Endian::big : Endian::little;
    Cursor c = view(16, h_.is64 ? 48 : 36);
    h_.type = c.u16();
    h_.machine = c.u16();
    c.u32();
    word(c);
    h_.phoff = word(c);
    h_.shoff = word(c);
    h_.flags = c.u32();
    c.u16();
    h_.phentsize = c.u16();
    h_.phnum = c.u16();
    h_.shentsize = c.u16();
    h_.shnum = c.u16();
    h_.shstrndx = c.u16();
    out_.elf_class = h_.is64 ? 64 : 32;
    out_.endian = data == 2 ? "big" : "little";
    out_.machine = h_.machine;
    out_.arch = elf_machine_arch(h_.machine, data == 2, out_.elf_class, h_.flags);
    static const char* types[] = {"none", "rel", "exec", "dyn", "core"};
    out_.elf_type = h_.type < 5 ? types[h_.type] : "other";
  }

  void program_headers() {
    if (h_.phnum == 0) return;
    size_t want = h_.is64 ? 56 : 32;
    if (h_.phentsize < want)
      throw ParseError("program header size " + std::to_string(h_.phentsize) + " too small", h_.phoff);
    Cursor all = view(h_.phoff, checked_mul(h_.phentsize, h_.phnum));
    for (uint16_t i = 0; i < h_.phnum; ++i) {
      Cursor c = all.sub(uint64_t(i) * h_.phentsize, want);
      Segment s{};
      s.type = c.u32();
      if (h_.is64) {
        s.flags = c.u32();
        s.offset = c.u64();
        s.vaddr = c.u64();
        c.u64();
        s.filesz = c.u64();
        s.memsz = c.u64();
        s.align = c.u64();
      } else {
        s.offset = c.u32();
        s.vaddr = c.u32();
        c.u32();
        s.filesz = c.u32();
        s.memsz = c.u32();
        s.flags = c.u32();
        s.align = c.u32();
      }
      if (s.type == PT_LOAD && checked_add(s.offset, s.filesz) > f_.size())
        throw ParseError("loadable segment " + std::to_string(i) + " runs past the end of the file (truncated?)",
                         h_.phoff);
      segs_.push_back(s);
    }
  }

  // A bare cubin (EM_CUDA) is SASS for one SM, named in e_flags: bits 0..7 before EI_ABIVERSION 8,
  // bits 8..15 from 8 on (CUDA 12.8+).
  void cubin_entry() {
    FatbinEntry e;
    e.kind = FatbinEntry::sass;
    e.sm = out_.abiversion >= 8 ? (h_.flags >> 8) & 0xff : h_.flags & 0xff;
    e.compression = "none";
    e.payload_size = e.uncompressed_size = f_.size();
    e.cubin_sm = e.sm;
    uint64_t head = std::min<uint64_t>(f_.size(), 64 * 1024);
    if (f_.has(0, head)) e.toolkit = toolkit_release(view(0, head).str(head));
    out_.fatbin.entries.push_back(e);
  }

  std::vector<ByteRange> first_wave() const {
    std::vector<ByteRange> r;
    if (h_.shoff && h_.shnum && h_.shentsize) r.push_back({h_.shoff, uint64_t(h_.shnum) * h_.shentsize});
    for (const auto& s : segs_)
      if (s.type == PT_DYNAMIC || s.type == PT_INTERP || s.type == PT_NOTE) r.push_back({s.offset, s.filesz});
    return r;
  }

  std::optional<ByteRange> shstrtab_range() const {
    if (!shstrtab_) return std::nullopt;
    return ByteRange{shstrtab_->offset, shstrtab_->size};
  }

  void section_headers() {
    if (h_.shoff == 0) return;
    size_t want = h_.is64 ? 64 : 40;
    if (h_.shentsize < want)
      throw ParseError("section header size " + std::to_string(h_.shentsize) + " too small", h_.shoff);
    uint64_t shnum = h_.shnum;
    uint64_t shstrndx = h_.shstrndx;
    if (shnum == 0 || shstrndx == 0xffff) {  // extended numbering lives in section 0
      Section s0 = section_at(0);
      if (shnum == 0) shnum = s0.size;
      if (shstrndx == 0xffff) shstrndx = s0.link;
    }
    if (shnum > kMaxEntries) throw ParseError("implausible section count " + std::to_string(shnum), h_.shoff);
    f_.require({{h_.shoff, checked_mul(shnum, h_.shentsize)}});
    for (uint64_t i = 0; i < shnum; ++i) secs_.push_back(section_at(i));
    if (shstrndx < secs_.size()) shstrtab_ = secs_[shstrndx];
  }

  Section section_at(uint64_t i) const {
    size_t want = h_.is64 ? 64 : 40;
    Cursor c = view(checked_add(h_.shoff, checked_mul(i, h_.shentsize)), want);
    Section s{};
    s.name = c.u32();
    s.type = c.u32();
    word(c);
    s.addr = word(c);
    s.offset = word(c);
    s.size = word(c);
    s.link = c.u32();
    s.info = c.u32();
    s.align = word(c);
    return s;
  }

  // The file range of the section called `name`; throws ParseError when a name it compares lies
  // outside the file. Callers take the result into a local first: built by GCC 12 at -O2,
  // `captured_optional = find_section(...)` inside loader_ignored's lambda came back engaged with
  // stack bytes when find_section threw (a .nv_fatbin "at offset 94365531074929" in the report,
  // another on every run; the Debug build, and the same code through a local, gave the warning).
  std::optional<ByteRange> find_section(std::string_view name) const {
    if (!shstrtab_ || secs_.empty()) return std::nullopt;
    for (const auto& s : secs_) {
      if (s.name >= shstrtab_->size) continue;
      uint64_t len = std::min<uint64_t>(name.size() + 1, shstrtab_->size - s.name);
      Cursor n = view(shstrtab_->offset + s.name, len);
      if (n.str(len) == std::string(name) + '\0' && s.type != 8 /* NOBITS */) return ByteRange{s.offset, s.size};
    }
    return std::nullopt;
  }

  void interp_and_stack() {
    for (const auto& s : segs_) {
      if (s.type == PT_INTERP) {
        Cursor c = view(s.offset, s.filesz);
        std::string_view v = c.str(s.filesz);
        out_.interpreter = std::string(v.substr(0, v.find('\0')));
      } else if (s.type == PT_GNU_STACK) {
        out_.exec_stack = (s.flags & 1) != 0;
      }
    }
  }

  // The file end of the loaded segment holding file offset `off` (the file's end when none does).
  uint64_t segment_end(uint64_t off) const {
    uint64_t end = f_.size();
    for (const auto& s : segs_)
      if (s.type == PT_LOAD && off >= s.offset && off - s.offset < s.filesz) end = std::min(end, s.offset + s.filesz);
    return end;
  }
  // Virtual address -> file offset through the PT_LOAD segments.
  uint64_t vaddr_to_offset(uint64_t va) const {
    for (const auto& s : segs_)
      if (s.type == PT_LOAD && va >= s.vaddr && va - s.vaddr < s.filesz) return s.offset + (va - s.vaddr);
    throw ParseError("address 0x" + to_hex(va) + " is not in any loaded segment", 0);
  }
  static std::string to_hex(uint64_t v) {
    char b[20];
    std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(v));
    return b;
  }

  // The dynamic section's tags, and where the tables they locate lie in the file.
  struct DynamicTables {
    std::map<int64_t, std::vector<uint64_t>> tags;
    uint64_t stroff = 0, strsz = 0;
    std::optional<uint64_t> verneed, verdef;
    std::optional<ByteRange> dynsym, versym;
    std::vector<ByteRange> ranges;  // string table, version record windows, .dynsym, .gnu.version
  };

  // `sized_dynsym`: find .dynsym's size (section headers, DT_HASH); off while streaming, when
  // only the dynamic section itself may be read.
  std::optional<DynamicTables> dynamic_tables(bool sized_dynsym = true) {
    const Segment* dyn = nullptr;
    for (const auto& s : segs_)
      if (s.type == PT_DYNAMIC) dyn = &s;
    if (!dyn) return std::nullopt;
    DynamicTables t;
    Cursor c = view(dyn->offset, dyn->filesz);
    while (c.remaining() >= (h_.is64 ? 16u : 8u)) {
      int64_t tag = h_.is64 ? static_cast<int64_t>(c.u64()) : static_cast<int32_t>(c.u32());
      uint64_t val = word(c);
      if (tag == DT_NULL) break;
      t.tags[tag].push_back(val);
    }
    if (!t.tags.count(DT_STRTAB)) {
      if (t.tags.count(DT_NEEDED)) throw ParseError("dynamic section has DT_NEEDED but no DT_STRTAB", dyn->offset);
      return std::nullopt;
    }
    t.stroff = vaddr_to_offset(t.tags[DT_STRTAB].front());
    t.strsz = t.tags.count(DT_STRSZ) ? t.tags[DT_STRSZ].front() : 0;
    if (t.strsz == 0 || t.strsz > f_.size() || t.stroff > f_.size() - t.strsz)
      throw ParseError("dynamic string table out of bounds", t.stroff);
    t.ranges.push_back({t.stroff, t.strsz});
    // Version records chain by relative offsets of unknown total length: fetch a generous window,
    // within the loaded segment that maps them (the loader reads them there; the bytes beyond
    // belong to other structures, possibly not kept while streaming).
    auto window = [&](uint64_t off) { return ByteRange{off, std::min<uint64_t>(64 * 1024, segment_end(off) - off)}; };
    if (t.tags.count(DT_VERNEED))
      t.ranges.push_back(window(*(t.verneed = vaddr_to_offset(t.tags[DT_VERNEED].front()))));
    if (t.tags.count(DT_VERDEF)) t.ranges.push_back(window(*(t.verdef = vaddr_to_offset(t.tags[DT_VERDEF].front()))));
    if (sized_dynsym) t.dynsym = dynsym_range(t.tags);
    if (t.dynsym) {
      t.ranges.push_back(*t.dynsym);
      if ((t.versym = versym_range(t.tags, t.dynsym->len / (h_.is64 ? 24 : 16)))) t.ranges.push_back(*t.versym);
    }
    return t;
  }

 public:
  // What the dynamic section points at, from the headers and the dynamic section alone (no
  // section headers yet: while streaming they come last). .dynsym's size then comes from DT_HASH,
  // or, with only a GNU hash, from the string table right after it.
  std::vector<ByteRange> dynamic_ranges() {
    header();
    program_headers();
    auto t = dynamic_tables(false);
    if (!t) return {};
    if (t->tags.count(DT_HASH)) {  // DT_HASH's nchain gives .dynsym's size at the end
      uint64_t off = vaddr_to_offset(t->tags[DT_HASH].front());
      t->ranges.push_back({off, std::min<uint64_t>(8, f_.size() - off)});
    }
    if (t->tags.count(DT_SYMTAB)) {
      // Its size is in the section headers, which come last: up to the nearest table after it
      // (linkers and patchelf keep .dynsym whole, followed by another dynamic table), within its
      // loaded segment.
      uint64_t symoff = vaddr_to_offset(t->tags[DT_SYMTAB].front()), end = segment_end(symoff);
      for (int64_t tag : kTableTags)
        for (uint64_t va : t->tags[tag])
          for (const auto& s : segs_)
            if (s.type == PT_LOAD && va >= s.vaddr && va - s.vaddr < s.filesz && s.offset + (va - s.vaddr) > symoff)
              end = std::min(end, s.offset + (va - s.vaddr));
      if (end > symoff && end - symoff <= kMaxDynsymGuess) {
        t->ranges.push_back({symoff, end - symoff});
        if (auto v = versym_range(t->tags, (end - symoff) / (h_.is64 ? 24 : 16))) t->ranges.push_back(*v);
      }
    }
    return t->ranges;
  }

 private:
  void dynamic() {
    auto t = dynamic_tables();
    if (!t) return;
    auto& tags = t->tags;
    uint64_t stroff = t->stroff, strsz = t->strsz;
    std::vector<ByteRange> need = t->ranges;
    if (auto sh = shstrtab_range()) need.push_back(*sh);  // second wave: section names too
    auto verneed = t->verneed, verdef = t->verdef;
    auto dynsym = t->dynsym, versym = t->versym;
    f_.require(need);
    Cursor strtab = view(stroff, strsz);
    // Every string copied out of .dynstr is charged to the wheel's memory budget first: a table of
    // counts can name one 8 MiB string a million times.
    auto str = [&](uint64_t off) {
      std::string_view s = strtab.cstr_at(off);
      charge_memory(s.size() + sizeof(std::string), "ELF dynamic strings (needed libraries, paths, versions)");
      return std::string(s);
    };
    for (uint64_t v : tags[DT_NEEDED]) out_.needed.push_back(str(v));
    if (tags.count(DT_SONAME)) out_.soname = str(tags[DT_SONAME].front());
    auto paths = [&](int64_t tag, std::vector<std::string>& dst) {
      for (uint64_t v : tags[tag]) {
        std::string s = str(v);
        size_t start = 0;
        for (size_t p; (p = s.find(':', start)) != std::string::npos; start = p + 1)
          dst.push_back(s.substr(start, p - start));
        dst.push_back(s.substr(start));
      }
    };
    paths(DT_RPATH, out_.rpath);
    paths(DT_RUNPATH, out_.runpath);
    DynamicSymbols syms;
    if (dynsym) {
      charge_memory(strsz, "ELF dynamic string table (symbol names)");
      syms = DynamicSymbols(std::string(reinterpret_cast<const char*>(strtab.data().data()), strtab.size()));
    }
    if (verneed) read_verneed(*verneed, tags.count(DT_VERNEEDNUM) ? tags[DT_VERNEEDNUM].front() : 0, str, strtab, syms);
    if (verdef) read_verdef(*verdef, tags.count(DT_VERDEFNUM) ? tags[DT_VERDEFNUM].front() : 0, str, strtab, syms);
    if (tags.count(DT_VERSYM) && !tags[DT_VERSYM].empty() && dynsym && !versym)
      out_.errors.push_back("DT_VERSYM points outside the file (the loader reads each symbol's version there)");
    HashTables hashes;
    for (auto [tag, slot] : {std::pair{DT_GNU_HASH, &hashes.gnu}, std::pair{DT_HASH, &hashes.sysv}})
      if (tags.count(tag) && !tags[tag].empty()) {
        try {
          *slot = vaddr_to_offset(tags[tag].front());
        } catch (const ParseError&) {
          out_.errors.push_back(std::string(tag == DT_HASH ? "DT_HASH" : "DT_GNU_HASH") +
                                " points outside every loaded segment (the loader looks symbols up through it)");
        }
      }
    if (dynsym) read_symbols(*dynsym, versym, strtab, syms, hashes);
    cxx_abi(strtab);
  }

  // Every name in the dynamic string table (defined and imported symbols alike, as `nm -D` lists
  // them), counted by the libstdc++ string/list ABI it uses (WC512); one linear pass over bytes
  // already read.
  void cxx_abi(const Cursor& strtab) {
    std::string_view all(reinterpret_cast<const char*>(strtab.data().data()), strtab.size());
    for (size_t at = 0; at < all.size();) {
      size_t end = all.find('\0', at);
      if (end == std::string_view::npos) end = all.size();
      if (end - at > 2 && all[at] == '_' && all[at + 1] == 'Z') count_cxx_abi(all.substr(at, end - at), out_.cxx_abi);
      at = end + 1;
    }
    out_.cxx_abi_read = true;
  }

  // Where .dynsym is and how long: its section header (sh_size), else DT_HASH's nchain. nullopt when
  // neither says, or when the size the file claims does not fit in it.
  std::optional<ByteRange> dynsym_range(std::map<int64_t, std::vector<uint64_t>>& tags) const {
    if (!tags.count(DT_SYMTAB)) return std::nullopt;
    uint64_t entsize = h_.is64 ? 24 : 16, size = 0;
    uint64_t off = vaddr_to_offset(tags[DT_SYMTAB].front());
    for (const auto& sec : secs_)
      if (sec.type == SHT_DYNSYM && sec.offset == off) size = sec.size;
    if (!size && tags.count(DT_HASH)) {
      Cursor h = view(vaddr_to_offset(tags[DT_HASH].front()), 8);
      h.u32();
      size = checked_mul(h.u32(), entsize);
    }
    if (!size || size > f_.size() || off > f_.size() - size) return std::nullopt;
    return ByteRange{off, size};
  }

  // .gnu.version: one 16-bit entry per .dynsym entry, within the file.
  std::optional<ByteRange> versym_range(const std::map<int64_t, std::vector<uint64_t>>& tags, uint64_t count) const {
    auto at = tags.find(DT_VERSYM);  // present and not just default-made by a lookup
    if (at == tags.end() || at->second.empty() || !count) return std::nullopt;
    uint64_t off;
    try {
      off = vaddr_to_offset(at->second.front());
    } catch (const ParseError&) {
      return std::nullopt;
    }
    uint64_t len = checked_mul(count, 2);
    if (len > f_.size() || off > f_.size() - len) return std::nullopt;
    return ByteRange{off, len};
  }

  // Every dynamic symbol, in one pass: undefined global ones (st_shndx == SHN_UNDEF) are what the
  // binary needs the loader to bind from its needed libraries (weak ones are optional: the binary
  // checks for them, as auditwheel treats them too); defined global, weak and GNU-unique ones of
  // default or protected visibility are what it offers others. Each carries its .gnu.version
  // index. Symbol 0 is the reserved null entry.
  struct HashTables {
    std::optional<uint64_t> gnu, sysv;  // file offsets of DT_GNU_HASH and DT_HASH
  };

  // The hash table ld.so looks this object's symbols up through (DT_GNU_HASH, else DT_HASH), checked
  // as the loader will use it. A table ld.so cannot use (no buckets: it divides by zero; a bloom
  // filter whose size is not a power of two: it asserts; chains that loop or run past .dynsym) is
  // WC508's error. Defined names a lookup through a valid table cannot reach (a chain hash that
  // lies, a bloom bit missing, a bucket that does not lead to them) are returned: ld.so binds no
  // reference to them. nullopt when the table is not at hand (streamed past) or there is none.
  std::optional<std::vector<bool>> reachable_by_hash(const HashTables& h, const Cursor& strtab, uint64_t count,
                                                     const std::vector<std::pair<uint32_t, uint32_t>>& defined) {
    std::vector<bool> reach(defined.size(), false);
    try {
      if (h.gnu) {
        Cursor hdr = view(*h.gnu, 16);
        const uint32_t nbuckets = hdr.u32(), symoffset = hdr.u32(), bloom_size = hdr.u32(), shift = hdr.u32();
        auto broken = [&](const std::string& why) {
          out_.errors.push_back("GNU hash table " + why);
          return std::nullopt;
        };
        if (nbuckets == 0) {  // ld.so loads it and finds nothing in it (dlsym: "undefined symbol")
          out_.errors.push_back("GNU hash table has no buckets: ld.so finds none of the object's symbols");
          return reach;
        }
        if (bloom_size == 0 || (bloom_size & (bloom_size - 1)))
          return broken("bloom filter has " + std::to_string(bloom_size) +
                        " words, not a power of two (ld.so asserts)");
        if (symoffset > count) return broken("starts past .dynsym (symoffset " + std::to_string(symoffset) + ")");
        const uint64_t word = h_.is64 ? 8 : 4, bits = word * 8;
        const uint64_t bloom_at = *h.gnu + 16, buckets_at = bloom_at + uint64_t(bloom_size) * word,
                       chain_at = buckets_at + uint64_t(nbuckets) * 4, chains = count - symoffset;
        if (chain_at + chains * 4 > f_.size()) return broken("runs past the end of the file");
        Cursor bloom = view(bloom_at, uint64_t(bloom_size) * word), buckets = view(buckets_at, uint64_t(nbuckets) * 4),
               chain = view(chain_at, chains * 4);
        auto gnu_hash = [](std::string_view n) {
          uint32_t x = 5381;
          for (unsigned char c : n) x = x * 33 + c;
          return x;
        };
        std::vector<uint32_t> slot(count, UINT32_MAX);  // symbol index -> position in `defined`
        for (size_t k = 0; k < defined.size(); ++k) slot[defined[k].first] = static_cast<uint32_t>(k);
        // Walk every bucket's chain once, within a budget a sound table never needs (overlapping
        // chains, harmless to ld.so's one walk per lookup, are not checked past it).
        uint64_t steps = 0, budget = 2 * chains + nbuckets;
        bool runs_past = false;
        std::vector<uint32_t> hash_of(defined.size());
        for (size_t k = 0; k < defined.size(); ++k)
          hash_of[k] =
              gnu_hash(std::string_view(reinterpret_cast<const char*>(strtab.data().data()) + defined[k].second,
                                        strtab.cstr_at(defined[k].second).size()));
        for (uint32_t b = 0; b < nbuckets; ++b) {
          buckets.seek(uint64_t(b) * 4);
          uint32_t i = buckets.u32();
          if (i == 0) continue;
          if (i < symoffset || i >= count)
            return broken("bucket " + std::to_string(b) + " points outside .dynsym's hashed symbols");
          for (;; ++i) {
            if (++steps > budget) {
              out_.warnings.push_back("GNU hash chains overlap: not checked past " + std::to_string(budget) + " steps");
              return std::nullopt;
            }
            if (i >= count) {  // ld.so reads on into what follows the table; the bytes there end it
              runs_past = true;
              break;
            }
            chain.seek(uint64_t(i - symoffset) * 4);
            const uint32_t cv = chain.u32();
            if (const uint32_t k = slot[i]; k != UINT32_MAX) {
              const uint32_t hv = hash_of[k];
              if (hv % nbuckets == b && (cv | 1) == (hv | 1)) reach[k] = true;
            }
            if (cv & 1) break;
          }
        }
        if (runs_past)
          out_.warnings.push_back(
              "GNU hash table: a chain has no end bit before the end of .dynsym; ld.so reads on past the table "
              "for names the object does not define");
        for (size_t k = 0; k < defined.size(); ++k) {  // the bloom filter lets each through?
          if (!reach[k]) continue;
          const uint32_t hv = hash_of[k];
          bloom.seek(((hv / bits) & (bloom_size - 1)) * word);
          const uint64_t w = h_.is64 ? bloom.u64() : bloom.u32();
          if (!((w >> (hv % bits)) & 1) || !((w >> ((hv >> shift) % bits)) & 1)) reach[k] = false;
        }
        return reach;
      }
      if (h.sysv) {
        Cursor hdr = view(*h.sysv, 8);
        const uint32_t nbucket = hdr.u32();
        if (nbucket == 0) {
          out_.errors.push_back("DT_HASH table has no buckets: ld.so finds none of the object's symbols");
          return reach;
        }
      }
    } catch (const NeedRanges&) {
      return std::nullopt;  // streamed past: not judged
    } catch (const ParseError& e) {
      out_.errors.push_back(std::string("symbol hash table: ") + e.what());
    }
    return std::nullopt;
  }

  void read_symbols(ByteRange r, std::optional<ByteRange> versym_at, const Cursor& strtab, DynamicSymbols& syms,
                    const HashTables& hashes = {}) {
    uint64_t entsize = h_.is64 ? 24 : 16, count = r.len / entsize;
    Cursor c = view(r.off, r.len);
    std::optional<Cursor> versym;
    if (versym_at) {
      try {
        versym = view(versym_at->off, versym_at->len);
      } catch (const ParseError&) {
      }
    }
    syms.set_versioned(versym.has_value());
    charge_memory(count * sizeof(DynamicSymbols::Symbol) * 3, ".dynsym entries and their index");
    U32Map<char> named;                                     // name offsets already charged for
    std::vector<std::pair<uint32_t, uint32_t>> defined_at;  // (.dynsym index, name offset) of each definition
    // Each string-table offset is measured once: 43,689 symbols naming one 8 MiB string cost one
    // scan, not 43,689 (the cost grows with the table, never with references x name length).
    U32Map<uint32_t> length_at;
    auto name_at = [&](uint32_t off) {
      auto [at, fresh] = length_at.try_emplace(off, 0);
      if (fresh) *at = static_cast<uint32_t>(strtab.cstr_at(off).size());
      return std::string_view(reinterpret_cast<const char*>(strtab.data().data()) + off, *at);
    };
    for (uint64_t i = 1; i < count; ++i) {
      Cursor e = c.sub(i * entsize, entsize);
      uint32_t name = e.u32();
      uint8_t info, other;
      uint16_t shndx;
      if (h_.is64) {
        info = e.u8();
        other = e.u8();
        shndx = e.u16();
      } else {
        e.skip(8);
        info = e.u8();
        other = e.u8();
        shndx = e.u16();
      }
      uint8_t bind = info >> 4, visibility = other & 3;
      if (name == 0 || name >= strtab.size()) continue;
      std::string_view sym = name_at(name);
      uint16_t ver = versym ? versym->sub(i * 2, 2).u16() : 1;
      DynamicSymbols::Symbol s{name, static_cast<uint32_t>(sym.size()), static_cast<uint16_t>(ver & 0x7fff),
                               (ver & 0x8000) != 0};
      if (shndx != 0) {
        // STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE; STV_DEFAULT or STV_PROTECTED
        if ((bind == 1 || bind == 2 || bind == 10) && (visibility == 0 || visibility == 3)) {
          defined_at.emplace_back(static_cast<uint32_t>(i), name);
          syms.add_defined(s);
          if ((sym.starts_with("PyInit_") || sym.starts_with("PyModExport_")) && named.insert(name)) {
            charge_memory(sym.size() + sizeof(std::string), ".dynsym module init names");
            out_.module_inits.emplace_back(sym);
          }
        }
        continue;
      }
      if (bind != 1 /* STB_GLOBAL */) continue;
      syms.add_undefined(s);  // named by offset: imported_names() views them, nothing is copied
      // Every rule that reads imports walks each distinct name once: charged as if held, so names
      // summing past the budget (distinct suffixes of one 8 MiB string) stop the reader here.
      if (named.insert(name)) charge_memory(sym.size() + sizeof(std::string), ".dynsym undefined symbol names");
    }
    if (auto reach = reachable_by_hash(hashes, strtab, count, defined_at)) {
      std::vector<std::string> lost;
      size_t n = 0;
      for (size_t k = 0; k < reach->size(); ++k)
        if (!(*reach)[k] && ++n <= 3) lost.emplace_back(strtab.cstr_at(defined_at[k].second).substr(0, 160));
      if (n) {
        out_.unreachable_exports = n;
        out_.unreachable_shown = std::move(lost);
        syms.keep_defined(*reach);
      }
    }
    syms.index();
    out_.undefined_symbols_read = true;
    out_.symbols = std::make_shared<const DynamicSymbols>(std::move(syms));
  }

  // Elf_Verneed / Elf_Vernaux chains (same layout for both classes). The records may sit anywhere
  // in the file, so each is fetched through the sparse view; cycles are cut by the count. Each
  // record is read once: chains that share records (65,536 needs sharing one chain of 65,535 names
  // would be 4 billion copies) stop where they reach one already read.
  template <typename Str>
  void read_verneed(uint64_t off, uint64_t count, Str& str, const Cursor& strtab, DynamicSymbols& syms) {
    if (count > kMaxEntries) throw ParseError("implausible DT_VERNEEDNUM", off);
    std::unordered_set<uint64_t> seen_need, seen_aux;
    // ld.so follows vn_next to its end whatever DT_VERNEEDNUM says; so does this reader (bounded).
    const uint64_t said = count;
    count = kMaxEntries;
    for (uint64_t i = 0; i < count && seen_need.insert(off).second; ++i) {
      Cursor c = view(off, 16);
      c.u16();
      uint16_t cnt = c.u16();
      uint32_t file = c.u32();
      std::string lib = str(file);
      uint32_t aux = c.u32(), next = c.u32();
      auto& versions = out_.version_needs[lib];
      uint64_t a = checked_add(off, aux);
      for (uint16_t k = 0; k < cnt && seen_aux.insert(a).second; ++k) {
        Cursor x = view(a, 16);
        x.u32();
        uint16_t flags = x.u16(), other = x.u16();
        uint32_t name = x.u32();
        versions.push_back(str(name));
        syms.set_version(other & 0x7fff, {file, static_cast<uint32_t>(strtab.cstr_at(file).size()), name,
                                          static_cast<uint32_t>(versions.back().size()), (flags & 2) != 0});
        uint32_t anext = x.u32();
        if (anext == 0) break;
        a = checked_add(a, anext);
      }
      if (next == 0) break;
      off = checked_add(off, next);
      if (i + 1 == said)
        out_.warnings.push_back("the version-need chain goes on past DT_VERNEEDNUM (" + std::to_string(said) +
                                " entries); ld.so follows vn_next, and so are the needs read here");
    }
  }

  template <typename Str>
  void read_verdef(uint64_t off, uint64_t count, Str& str, const Cursor& strtab, DynamicSymbols& syms) {
    if (count > kMaxEntries) throw ParseError("implausible DT_VERDEFNUM", off);
    std::unordered_set<uint64_t> seen;
    for (uint64_t i = 0; i < count && seen.insert(off).second; ++i) {
      Cursor c = view(off, 20);
      c.u16();
      uint16_t flags = c.u16(), ndx = c.u16(), cnt = c.u16();
      c.u32();
      uint32_t aux = c.u32(), next = c.u32();
      if (cnt > 0) {
        Cursor x = view(checked_add(off, aux), 8);
        uint32_t name = x.u32();
        if (name < strtab.size())
          syms.set_version(ndx & 0x7fff, {0, 0, name, static_cast<uint32_t>(strtab.cstr_at(name).size()), false});
        if (!(flags & 1)) out_.version_defs.push_back(str(name));  // VER_FLG_BASE names the file itself
      }
      if (next == 0) break;
      off = checked_add(off, next);
    }
  }

  // GNU property notes: x86 ISA level needed (readelf -n: "x86 ISA needed"). Notes pad their
  // name and descriptor to the segment's alignment: 4 for classic notes, 8 for GNU properties
  // on 64-bit targets.
  void isa_level() {
    std::vector<std::pair<ByteRange, uint64_t>> notes;
    for (const auto& s : segs_)
      if (s.type == PT_NOTE) notes.push_back({{s.offset, s.filesz}, s.align == 8 ? 8u : 4u});
    if (segs_.empty())
      for (const auto& s : secs_)
        if (s.type == SHT_NOTE) notes.push_back({{s.offset, s.size}, s.align == 8 ? 8u : 4u});
    for (const auto& [r, note_align] : notes) {
      Cursor c = view(r.off, r.len);
      const uint64_t align = note_align;  // clang 14 cannot capture a structured binding
      auto align_up = [&](uint64_t v) { return (v + align - 1) & ~(align - 1); };
      while (c.remaining() >= 12) {
        uint32_t namesz = c.u32(), descsz = c.u32(), type = c.u32();
        // The descriptor starts at the next `align` boundary after the name (segment-relative).
        uint64_t desc_at = align_up(checked_add(c.pos(), namesz));
        if (namesz > c.remaining() || desc_at > c.size() || descsz > c.size() - desc_at)
          throw ParseError("note runs past its segment", c.offset());
        std::string_view name = c.str(namesz);
        Cursor desc = c.sub(desc_at, descsz);
        c.seek(std::min<uint64_t>(align_up(desc_at + descsz), c.size()));
        if (type != NT_GNU_PROPERTY_TYPE_0 || name.substr(0, 4) != std::string_view("GNU\0", 4)) continue;
        while (desc.remaining() >= 8) {
          uint32_t pr_type = desc.u32(), pr_size = desc.u32();
          Cursor pd = desc.sub(desc.pos(), pr_size);
          uint64_t pr_align = h_.is64 ? 8 : 4;  // property entries pad to the ELF class's word size
          desc.skip(std::min<uint64_t>((uint64_t(pr_size) + pr_align - 1) & ~(pr_align - 1), desc.remaining()));
          if (pr_type == GNU_PROPERTY_X86_ISA_1_NEEDED && pr_size >= 4) {
            uint32_t bits = pd.u32();
            unsigned level = bits & 8 ? 4 : bits & 4 ? 3 : bits & 2 ? 2 : bits & 1 ? 1 : 0;
            if (level) out_.x86_isa_level = level;
          }
        }
      }
    }
  }

  std::string libc_flavour() const {
    if (out_.interpreter.find("ld-musl") != std::string::npos) return "musl";
    if (out_.interpreter.find("ld-linux") != std::string::npos || out_.interpreter.find("ld64.so") != std::string::npos)
      return "glibc";
    for (const auto& n : out_.needed) {
      if (n.rfind("libc.musl-", 0) == 0 || n == "libc.so") return "musl";
      if (n == "libc.so.6") return "glibc";
    }
    for (const auto& [lib, vers] : out_.version_needs)
      for (const auto& v : vers)
        if (v.rfind("GLIBC_", 0) == 0) return "glibc";
    return "";
  }

  const SparseFile& f_;
  BinaryFacts& out_;
  Header h_;
  std::vector<Segment> segs_;
  std::vector<Section> secs_;
  std::optional<Section> shstrtab_;
};

}  // namespace

std::string elf_machine_arch(uint16_t machine, bool big_endian, int elf_class, uint32_t flags) {
  switch (machine) {
    case 3: return "i686";
    case 62: return "x86_64";
    case 183: return "aarch64";
    case 40: return (flags & 0xff000000u) == 0x05000000u && (flags & 0x400u) ? "armv7l" : "armel";
    case 21: return big_endian ? "ppc64" : "ppc64le";
    case 20: return "ppc";
    case 22: return elf_class == 64 ? "s390x" : "s390";
    case 243: return elf_class == 64 ? "riscv64" : "riscv32";
    case 258: return "loongarch64";
    case 190: return "cuda";
    case 164: return "hexagon";  // Qualcomm Hexagon DSP (EM_QDSP6)
    case 224: return "amdgpu";
    case 247: return "bpf";
    default: return "machine-" + std::to_string(machine);
  }
}

ElfLayout read_elf(const SparseFile& f, BinaryFacts& out) { return ElfReader(f, out).run(); }

void read_elf_headers(const SparseFile& f, BinaryFacts& out) { ElfReader(f, out).headers_only(); }

CapturePlan elf_capture_plan(const SparseFile& f, uint64_t head_cap) {
  BinaryFacts scratch;
  return ElfReader(f, scratch).plan(head_cap);
}

std::vector<ByteRange> elf_dynamic_ranges(const SparseFile& f) {
  BinaryFacts scratch;
  return ElfReader(f, scratch).dynamic_ranges();
}

}  // namespace wc
