#include "binary/pe_reader.h"

namespace wc {
namespace {

struct PeSection {
  uint32_t vaddr, vsize, raw_off, raw_size;
};

uint64_t rva_to_offset(const std::vector<PeSection>& secs, uint32_t rva) {
  for (const auto& s : secs) {
    uint32_t span = std::max(s.vsize, s.raw_size);
    if (rva >= s.vaddr && rva - s.vaddr < span) {
      uint32_t delta = rva - s.vaddr;
      if (delta >= s.raw_size) break;
      return uint64_t(s.raw_off) + delta;
    }
  }
  throw ParseError("RVA 0x" + std::to_string(rva) + " is not inside any section's file data", 0);
}

}  // namespace

std::string pe_machine_arch(uint16_t m) {
  switch (m) {
    case 0x14c: return "x86";
    case 0x8664: return "amd64";
    case 0xaa64: return "arm64";
    case 0x200: return "ia64";
    case 0x1c4: return "arm";
    default: return "machine-" + std::to_string(m);
  }
}

void read_pe(const SparseFile& f, BinaryFacts& out) {
  out.format = "pe";
  Cursor dos = f.view(0, 64);
  if (dos.u16() != 0x5a4d) throw ParseError("no MZ header", 0);
  dos.seek(0x3c);
  uint32_t pe_off = dos.u32();
  Cursor coff = f.view(pe_off, 24);
  if (coff.u32() != 0x00004550) throw ParseError("no PE signature at e_lfanew", pe_off);
  out.machine = coff.u16();
  out.arch = pe_machine_arch(out.machine);
  uint16_t nsec = coff.u16();
  coff.skip(12);
  uint16_t opt_size = coff.u16();
  uint64_t opt_off = uint64_t(pe_off) + 24;
  std::vector<PeSection> secs;
  Cursor st = f.view(checked_add(opt_off, opt_size), checked_mul(nsec, 40));
  for (uint16_t i = 0; i < nsec; ++i) {
    st.skip(8);
    PeSection s;
    s.vsize = st.u32();
    s.vaddr = st.u32();
    s.raw_size = st.u32();
    s.raw_off = st.u32();
    st.skip(16);
    if (uint64_t(s.raw_off) + s.raw_size > f.size())
      throw ParseError("section " + std::to_string(i) + " runs past the end of the file (truncated?)",
                       st.offset() - 40);
    secs.push_back(s);
  }
  if (opt_size < 2) return;  // object file: no imports
  Cursor opt = f.view(opt_off, opt_size);
  uint16_t magic = opt.u16();
  if (magic != 0x10b && magic != 0x20b) throw ParseError("unknown optional header magic", opt_off);
  uint64_t count_at = magic == 0x20b ? 108 : 92;
  opt.seek(count_at);
  uint32_t ndirs = opt.u32();
  if (ndirs < 2) return;
  opt.skip(8);  // export directory
  uint32_t import_rva = opt.u32(), import_size = opt.u32();
  if (import_rva == 0 || import_size == 0) return;
  uint64_t off = rva_to_offset(secs, import_rva);
  for (int i = 0; i < 4096; ++i) {  // descriptors end with an all-zero one
    Cursor d = f.view(checked_add(off, uint64_t(i) * 20), 20);
    uint32_t ilt = d.u32();
    d.skip(8);
    uint32_t name_rva = d.u32(), iat = d.u32();
    if (ilt == 0 && name_rva == 0 && iat == 0) return;
    uint64_t name_off = rva_to_offset(secs, name_rva);
    Cursor n = f.view(name_off, std::min<uint64_t>(256, f.size() - name_off));
    out.dlls.emplace_back(n.cstr_at(0));
  }
  throw ParseError("import directory has no terminator within 4096 descriptors", off);
}

}  // namespace wc
