#include "binary/pe_reader.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "util/budget.h"
#include "util/strings.h"

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

namespace {

struct PeHeaders {
  uint16_t machine = 0;
  uint64_t opt_off = 0;
  uint16_t opt_size = 0;
  std::vector<PeSection> secs;
  std::vector<std::string> names;
};

PeHeaders pe_headers(const SparseFile& f) {
  PeHeaders h;
  Cursor dos = f.view(0, 64);
  if (dos.u16() != 0x5a4d) throw ParseError("no MZ header", 0);
  dos.seek(0x3c);
  uint32_t pe_off = dos.u32();
  Cursor coff = f.view(pe_off, 24);
  if (coff.u32() != 0x00004550) throw ParseError("no PE signature at e_lfanew", pe_off);
  h.machine = coff.u16();
  uint16_t nsec = coff.u16();
  coff.skip(12);
  h.opt_size = coff.u16();
  h.opt_off = uint64_t(pe_off) + 24;
  Cursor st = f.view(checked_add(h.opt_off, h.opt_size), checked_mul(nsec, 40));
  for (uint16_t i = 0; i < nsec; ++i) {
    std::string_view raw = st.str(8);
    h.names.emplace_back(raw.substr(0, std::min(raw.find('\0'), raw.size())));
    PeSection s;
    s.vsize = st.u32();
    s.vaddr = st.u32();
    s.raw_size = st.u32();
    s.raw_off = st.u32();
    st.skip(16);
    if (uint64_t(s.raw_off) + s.raw_size > f.size())
      throw ParseError("section " + std::to_string(i) + " runs past the end of the file (truncated?)",
                       st.offset() - 40);
    h.secs.push_back(s);
  }
  return h;
}

// The import directory's RVA, or 0.
uint32_t import_rva(const SparseFile& f, const PeHeaders& h) {
  if (h.opt_size < 2) return 0;
  Cursor opt = f.view(h.opt_off, h.opt_size);
  uint16_t magic = opt.u16();
  if (magic != 0x10b && magic != 0x20b) throw ParseError("unknown optional header magic", h.opt_off);
  uint64_t count_at = magic == 0x20b ? 108 : 92;
  opt.seek(count_at);
  uint32_t ndirs = opt.u32();
  if (ndirs < 2) return 0;
  opt.skip(8);  // export directory
  uint32_t rva = opt.u32(), size = opt.u32();
  return rva && size ? rva : 0;
}

// The NUL-terminated name at `at`. Mangled C++ names run to kilobytes (Arrow's templates): a
// wider window when the first ends before the name does.
std::string_view name_at(const SparseFile& f, uint64_t at, const std::string& what) {
  for (uint64_t window : {uint64_t(1024), uint64_t(64 * 1024)}) {
    Cursor n = f.view(at, std::min<uint64_t>(window, f.size() - at));
    std::string_view all(reinterpret_cast<const char*>(n.data().data()), n.size());
    auto end = all.find('\0');
    if (end != std::string_view::npos) return all.substr(0, end);
    if (n.size() < window) break;
  }
  throw ParseError(what + " is not terminated within 64 KiB", at);
}

// Data directory `index`'s (RVA, size); (0, 0) when the file has none.
std::pair<uint32_t, uint32_t> data_directory(const SparseFile& f, const PeHeaders& h, uint32_t index) {
  if (h.opt_size < 2) return {0, 0};
  Cursor opt = f.view(h.opt_off, h.opt_size);
  uint16_t magic = opt.u16();
  opt.seek(magic == 0x20b ? 108 : 92);
  if (opt.u32() <= index) return {0, 0};
  opt.skip(8 * index);
  uint32_t rva = opt.u32(), size = opt.u32();
  return rva && size ? std::make_pair(rva, size) : std::make_pair(0u, 0u);
}

// Runs `read`, a table the loader may do without: "" when it was read, else why not (a ParseError
// of the table). The memory budget is no table's: it ends the file.
template <typename F>
std::string unless_unreadable(F&& read) {
  try {
    read();
    return "";
  } catch (const BudgetExceeded&) {
    throw;
  } catch (const ParseError& e) {
    return e.what();
  }
}

constexpr uint64_t kMaxForwarder = 512;  // "DLL.name": far past any real one

// The names a DLL exports (the export name pointer table), each once, and "#N" for each ordinal
// with an address; an address inside the export directory is a forwarder ("OTHER.name").
void read_exports(const SparseFile& f, const std::vector<PeSection>& secs, uint32_t rva, uint32_t dir_size,
                  BinaryFacts& out) {
  Cursor d = f.view(rva_to_offset(secs, rva), 40);
  d.skip(16);
  uint32_t base = d.u32(), functions = d.u32(), count = d.u32(), functions_rva = d.u32(), names_rva = d.u32(),
           ordinals_rva = d.u32();
  constexpr uint32_t kMaxExports = 1u << 20;
  if (count > kMaxExports) throw ParseError("implausible export name count " + std::to_string(count), 0);
  if (functions > kMaxExports) throw ParseError("implausible export address count " + std::to_string(functions), 0);
  // The address table gives the ordinals and the forwarders; one that cannot be read costs those.
  std::vector<uint32_t> address;
  auto read_addresses = [&] {
    Cursor a = f.view(rva_to_offset(secs, functions_rva), checked_mul(functions, 4));
    charge_memory(uint64_t(functions) * 4, "PE export addresses");
    address.resize(functions);
    for (auto& x : address) x = a.u32();
  };
  if (functions && !unless_unreadable(read_addresses).empty()) address.clear();
  // A forwarder is "DLL.name" (a few hundred bytes at most): each distinct address is read once,
  // bounded, and charged; a string without a dot, or a longer one, is no forwarder.
  std::map<uint32_t, std::optional<std::string>> forwarders;
  auto forwarder = [&](uint32_t index) -> std::optional<std::string> {
    if (index >= address.size() || address[index] < rva || address[index] - rva >= dir_size) return std::nullopt;
    auto [it, fresh] = forwarders.try_emplace(address[index]);
    if (fresh) {
      uint64_t at = rva_to_offset(secs, address[index]);
      Cursor n = f.view(at, std::min<uint64_t>(kMaxForwarder + 1, f.size() - std::min<uint64_t>(at, f.size())));
      std::string_view all(reinterpret_cast<const char*>(n.data().data()), n.size());
      auto end = all.find('\0');
      if (end != std::string_view::npos && end <= kMaxForwarder &&
          all.substr(0, end).find('.') != std::string_view::npos) {
        charge_memory(end + sizeof(std::string), "PE export forwarders");
        it->second = std::string(all.substr(0, end));
      }
    }
    if (it->second) charge_memory(it->second->size() + sizeof(std::string), "PE export forwarders");
    return it->second;
  };
  for (uint32_t i = 0; i < address.size(); ++i)
    if (address[i]) {
      std::string ordinal = "#" + std::to_string(uint64_t(base) + i);
      charge_memory(ordinal.size() + sizeof(std::string), "PE export names");
      if (auto fw = forwarder(i)) out.pe_forwarders.emplace_back(ordinal, std::move(*fw));
      out.pe_exports.push_back(std::move(ordinal));
    }
  if (count == 0) return;
  Cursor table = f.view(rva_to_offset(secs, names_rva), checked_mul(count, 4));
  // The name ordinal table only tells which names forward; one that cannot be read costs that, not
  // the names.
  std::vector<uint16_t> index_of;
  auto read_index = [&] {
    Cursor ordinals = f.view(rva_to_offset(secs, ordinals_rva), checked_mul(count, 2));
    index_of.resize(count);
    for (auto& x : index_of) x = ordinals.u16();
  };
  if (!unless_unreadable(read_index).empty()) index_of.clear();
  std::set<uint32_t> seen;  // entries naming one string are read once
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t name_rva = table.u32();
    uint32_t index = index_of.empty() ? UINT32_MAX : index_of[i];
    if (!seen.insert(name_rva).second) continue;
    uint64_t at = rva_to_offset(secs, name_rva);
    std::string_view name = name_at(f, at, "export name " + std::to_string(i));
    charge_memory(name.size() + sizeof(std::string), "PE export names");
    out.pe_exports.emplace_back(name);
    if (auto fw = forwarder(index)) out.pe_forwarders.emplace_back(std::string(name), std::move(*fw));
  }
}

// python3.dll, python3t.dll, python312.dll, python314t.dll (any case): the interpreter's own DLL.
bool is_python_dll(std::string_view dll) {
  std::string l = to_lower(dll);
  if (!l.starts_with("python3") || !l.ends_with(".dll")) return false;
  std::string_view mid = std::string_view(l).substr(7, l.size() - 11);
  if (mid.ends_with('t')) mid.remove_suffix(1);
  return std::all_of(mid.begin(), mid.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The import lookup table of one DLL: by-name entries (hint, then the name); by-ordinal ones
// (high bit set) as "#N".
void read_import_names(const SparseFile& f, const std::vector<PeSection>& secs, uint32_t table_rva, bool pe64,
                       std::vector<std::string>& out) {
  uint64_t at = rva_to_offset(secs, table_rva), width = pe64 ? 8 : 4;
  for (uint32_t i = 0; i < 65536; ++i) {
    Cursor c = f.view(checked_add(at, uint64_t(i) * width), width);
    uint64_t v = pe64 ? c.u64() : c.u32();
    if (v == 0) return;
    if (v >> (pe64 ? 63 : 31)) {  // by ordinal
      std::string ordinal = "#" + std::to_string(v & 0xffff);
      charge_memory(ordinal.size() + sizeof(std::string), "PE import names");
      out.push_back(std::move(ordinal));
      continue;
    }
    uint64_t name_off = checked_add(rva_to_offset(secs, static_cast<uint32_t>(v & 0x7fffffff)), 2);
    if (name_off >= f.size()) throw ParseError("import name past the end of the file", at);
    std::string_view name = name_at(f, name_off, "import name");
    charge_memory(name.size() + sizeof(std::string), "PE import names");
    out.emplace_back(name);
  }
  throw ParseError("import lookup table has no terminator within 65536 entries", at);
}

}  // namespace

CapturePlan pe_capture_plan(const SparseFile& f) {
  CapturePlan p;
  PeHeaders h = pe_headers(f);
  uint32_t rva = import_rva(f, h);
  if (!rva) return p;
  constexpr uint32_t kSmallSection = 4u << 20;
  for (size_t i = 0; i < h.secs.size(); ++i) {
    const PeSection& s = h.secs[i];
    bool holds_imports = rva >= s.vaddr && rva - s.vaddr < std::max(s.vsize, s.raw_size);
    bool small_data = s.raw_size <= kSmallSection && h.names[i] != ".text" && h.names[i] != ".nv_fatb";
    if (s.raw_size && (holds_imports || small_data)) p.ranges.push_back({s.raw_off, s.raw_size});
  }
  return p;
}

std::optional<ByteRange> read_pe(const SparseFile& f, BinaryFacts& out) {
  out.format = "pe";
  PeHeaders h = pe_headers(f);
  out.machine = h.machine;
  out.arch = pe_machine_arch(out.machine);
  const std::vector<PeSection>& secs = h.secs;
  std::optional<ByteRange> fatbin;
  for (size_t i = 0; i < secs.size(); ++i)
    if (h.names[i] == ".nv_fatb" && secs[i].raw_size) fatbin = ByteRange{secs[i].raw_off, secs[i].raw_size};
  if (auto [exports, size] = data_directory(f, h, 0); exports) read_exports(f, secs, exports, size, out);
  out.pe_exports_read = true;
  // Delay-load descriptors (32 bytes: attributes, name, module handle, IAT, INT, ...), ending with
  // an all-zero one; their names bind at the first call.
  // A broken one is a warning (the loader reads it only at the first call), never the file's error;
  // the memory budget still ends the file. Descriptors with attribute bit 0 clear (before Visual C++
  // 7) hold addresses, not RVAs, and are not read. Each name table is read once, as for imports.
  std::string delay_failure = unless_unreadable([&] {
    if (auto [delay, size] = data_directory(f, h, 13); delay) {
      bool pe64_delay = f.view(h.opt_off, 2).u16() == 0x20b;
      uint64_t at = rva_to_offset(secs, delay);
      std::set<uint32_t> delay_tables;
      for (int i = 0; i < 4096; ++i) {
        Cursor d = f.view(checked_add(at, uint64_t(i) * 32), 32);
        uint32_t attributes = d.u32(), name_rva = d.u32();
        d.skip(8);
        uint32_t int_rva = d.u32();
        if (name_rva == 0) break;
        if (!(attributes & 1)) continue;
        std::string dll(name_at(f, rva_to_offset(secs, name_rva), "delay-load DLL name"));
        charge_memory(dll.size() + sizeof(std::string), "PE imported DLL names");
        if (int_rva && delay_tables.insert(int_rva).second)
          read_import_names(f, secs, int_rva, pe64_delay, out.dll_delay_imports[dll]);
      }
    }
  });
  if (!delay_failure.empty()) {
    out.dll_delay_imports.clear();
    out.warnings.push_back("delay-load import directory not read: " + delay_failure);
  }
  uint32_t rva = import_rva(f, h);
  out.undefined_symbols_read = true;  // nothing imported from a Python DLL unless the directory says so
  if (!rva) return fatbin;
  bool pe64 = f.view(h.opt_off, 2).u16() == 0x20b;
  uint64_t off = rva_to_offset(secs, rva);
  // A lookup table is read once, however many descriptors point at it (4,095 descriptors sharing
  // one 65,535-entry table were 268 million copies of its names).
  std::set<uint32_t> tables_read;
  for (int i = 0; i < 4096; ++i) {  // descriptors end with an all-zero one
    Cursor d = f.view(checked_add(off, uint64_t(i) * 20), 20);
    uint32_t ilt = d.u32();
    d.skip(8);
    uint32_t name_rva = d.u32(), iat = d.u32();
    if (ilt == 0 && name_rva == 0 && iat == 0) return fatbin;
    uint64_t name_off = rva_to_offset(secs, name_rva);
    Cursor n = f.view(name_off, std::min<uint64_t>(256, f.size() - name_off));
    std::string_view dll = n.cstr_at(0);
    charge_memory(dll.size() + sizeof(std::string), "PE imported DLL names");
    out.dlls.emplace_back(dll);
    if (!tables_read.insert(ilt ? ilt : iat).second) continue;
    if (is_python_dll(out.dlls.back())) {
      auto& names = out.python_dll_imports[out.dlls.back()];
      size_t before = names.size();
      read_import_names(f, secs, ilt ? ilt : iat, pe64, names);
      // By ordinal from the Python DLL: no name for the stable-ABI check to judge.
      names.erase(std::remove_if(names.begin() + long(before), names.end(),
                                 [](const std::string& n) { return n.starts_with('#'); }),
                  names.end());
      out.undefined_symbols.insert(out.undefined_symbols.end(), names.begin() + long(before), names.end());
      out.undefined_symbols_read = true;
    } else {  // what it binds from other DLLs by name (WC514)
      read_import_names(f, secs, ilt ? ilt : iat, pe64, out.dll_imports[out.dlls.back()]);
    }
  }
  throw ParseError("import directory has no terminator within 4096 descriptors", off);
}

}  // namespace wc
