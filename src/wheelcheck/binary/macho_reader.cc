#include "binary/macho_reader.h"

namespace wc {
namespace {

constexpr uint32_t MH_MAGIC = 0xfeedface, MH_MAGIC_64 = 0xfeedfacf, FAT_MAGIC = 0xcafebabe, FAT_MAGIC_64 = 0xcafebabf;
constexpr uint32_t LC_LOAD_DYLIB = 0xc, LC_LOAD_WEAK_DYLIB = 0x80000018, LC_REEXPORT_DYLIB = 0x8000001f,
                   LC_LAZY_LOAD_DYLIB = 0x20, LC_LOAD_UPWARD_DYLIB = 0x80000023, LC_RPATH = 0x8000001c,
                   LC_VERSION_MIN_MACOSX = 0x24, LC_BUILD_VERSION = 0x32;
constexpr uint32_t kMaxSlices = 32, kMaxCommands = 1u << 16;

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

MachOSlice read_thin(const SparseFile& f, uint64_t base, uint64_t size) {
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
  for (uint32_t i = 0; i < ncmds; ++i) {
    uint64_t at = cmds.pos();
    uint32_t cmd = cmds.u32(), cmdsize = cmds.u32();
    if (cmdsize < 8 || cmdsize % 4)
      throw ParseError("bad load command size " + std::to_string(cmdsize), cmds.offset() - 4);
    Cursor c = cmds.sub(at, cmdsize);
    cmds.seek(checked_add(at, cmdsize));
    c.skip(8);
    switch (cmd) {
      case LC_LOAD_DYLIB:
      case LC_LOAD_WEAK_DYLIB:
      case LC_REEXPORT_DYLIB:
      case LC_LAZY_LOAD_DYLIB:
      case LC_LOAD_UPWARD_DYLIB: s.dylibs.push_back(lc_string(c, c.u32())); break;
      case LC_RPATH: s.rpaths.push_back(lc_string(c, c.u32())); break;
      case LC_VERSION_MIN_MACOSX:
        if (s.minos.empty())
          s.minos = xyz_version(c.u32(), &s.minos_major, &s.minos_minor), s.sdk = xyz_version(c.u32());
        break;
      case LC_BUILD_VERSION: {
        uint32_t platform = c.u32();
        if (platform == 1) s.minos = xyz_version(c.u32(), &s.minos_major, &s.minos_minor), s.sdk = xyz_version(c.u32());
        break;
      }
      default: break;
    }
  }
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
  if (magic != FAT_MAGIC && magic != FAT_MAGIC_64) return p;  // thin: the head holds it
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
    if (off < f.size()) p.ranges.push_back({off, std::min({size, uint64_t(1) << 20, f.size() - off})});
  }
  return p;
}

void read_macho(const SparseFile& f, BinaryFacts& out) {
  out.format = "macho";
  Cursor h = f.view(0, 8, Endian::big);
  uint32_t magic = h.u32();
  if (magic != FAT_MAGIC && magic != FAT_MAGIC_64) {
    out.slices.push_back(read_thin(f, 0, f.size()));
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
      out.slices.push_back(read_thin(f, off, size));
    }
  }
  std::string arch;
  for (const auto& s : out.slices) arch += (arch.empty() ? "" : "+") + s.arch;
  out.arch =
      out.slices.size() == 2 && arch.find("x86_64") != std::string::npos && arch.find("arm64") != std::string::npos
          ? "universal2"
          : arch;
}

}  // namespace wc
