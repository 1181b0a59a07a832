#include "binary/binary_facts.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "binary/elf_reader.h"
#include "binary/fatbin.h"
#include "binary/macho_reader.h"
#include "binary/pe_reader.h"
#include "util/parse.h"
#include "wheel/entry_names.h"

namespace wc {

using nlohmann::json;

int compare_dotted(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    size_t ie = a.find('.', i), je = b.find('.', j);
    std::string x = a.substr(i, ie == std::string::npos ? std::string::npos : ie - i);
    std::string y = b.substr(j, je == std::string::npos ? std::string::npos : je - j);
    // Numeric parts compare as numbers (leading zeros ignored, any length); the rest as text.
    bool nx = all_digits(x), ny = all_digits(y);
    if (nx && ny) {
      auto strip = [](const std::string& v) { return v.substr(std::min(v.find_first_not_of('0'), v.size() - 1)); };
      std::string vx = strip(x), vy = strip(y);
      if (vx.size() != vy.size()) return vx.size() < vy.size() ? -1 : 1;
      if (vx != vy) return vx < vy ? -1 : 1;
    } else if (x != y) {
      return x < y ? -1 : 1;
    }
    i = ie == std::string::npos ? a.size() : ie + 1;
    j = je == std::string::npos ? b.size() : je + 1;
  }
  return 0;
}

std::map<std::string, std::string> BinaryFacts::max_symbol_versions() const {
  std::map<std::string, std::string> out;
  for (const auto& [lib, versions] : version_needs) {
    for (const auto& v : versions) {
      auto us = v.find('_');
      if (us == std::string::npos) continue;
      std::string prefix = v.substr(0, us), num = v.substr(us + 1);
      if (num.empty() || !is_digit(num[0])) continue;
      auto it = out.find(prefix);
      if (it == out.end() || compare_dotted(it->second, num) < 0) out[prefix] = num;
    }
  }
  return out;
}

std::vector<std::string> sorted_arch_names(const std::vector<std::string>& names) {
  std::set<std::string> uniq(names.begin(), names.end());
  std::vector<std::string> v(uniq.begin(), uniq.end());
  auto num = [](const std::string& x) {
    std::string_view d = std::string_view(x).substr(x.find('_') + 1);
    return parse_decimal(d.substr(0, digit_prefix(d)), UINT32_MAX).value_or(0);
  };
  std::sort(v.begin(), v.end(),
            [&](const std::string& a, const std::string& b) { return num(a) != num(b) ? num(a) < num(b) : a < b; });
  return v;
}

static std::vector<std::string> names_of(const std::vector<FatbinEntry>& es, FatbinEntry::Kind k) {
  std::vector<std::string> v;
  for (const auto& e : es)
    if (e.kind == k) v.push_back(e.name());
  return sorted_arch_names(v);
}

std::vector<std::string> FatbinFacts::sass() const { return names_of(entries, FatbinEntry::sass); }

bool FatbinFacts::container_has_code(size_t container) const {
  for (const auto& e : entries)
    if (e.container == container && (e.kind == FatbinEntry::ptx || e.has_kernels != std::optional<bool>(false)))
      return true;
  return false;
}
std::vector<std::string> FatbinFacts::ptx() const { return names_of(entries, FatbinEntry::ptx); }

std::vector<std::string_view> imported_names(const BinaryFacts& b) {
  std::vector<std::string_view> out;
  if (!b.symbols) {
    out.assign(b.undefined_symbols.begin(), b.undefined_symbols.end());
    return out;
  }
  const DynamicSymbols& d = *b.symbols;
  std::unordered_set<uint32_t> seen;  // one name offset, one name (a table may name one string a million times)
  out.reserve(d.undefined().size());
  for (const auto& s : d.undefined())
    if (seen.insert(s.name).second) out.push_back(d.name(s));
  return out;
}

json binary_to_json(const BinaryFacts& b) {
  json j = {{"path", b.path}, {"format", b.format}, {"arch", b.arch}};
  if (b.headers_only) j["headers_only"] = true;
  if (b.format == "elf") {
    j["class"] = b.elf_class;
    j["endian"] = b.endian;
    j["machine"] = b.machine;
    j["type"] = b.elf_type;
    if (!b.interpreter.empty()) j["interpreter"] = b.interpreter;
    if (!b.soname.empty()) j["soname"] = b.soname;
    j["needed"] = b.needed;
    if (!b.rpath.empty()) j["rpath"] = b.rpath;
    if (!b.runpath.empty()) j["runpath"] = b.runpath;
    j["version_needs"] = b.version_needs;
    j["max_symbol_versions"] = b.max_symbol_versions();
    if (!b.version_defs.empty()) j["version_defs"] = b.version_defs;
    if (b.x86_isa_level) j["x86_isa_level"] = *b.x86_isa_level;
    j["exec_stack"] = b.exec_stack;
    if (!b.libc.empty()) j["libc"] = b.libc;
    if (!b.cxx_abi.empty()) {
      json c = json::object();
      for (const auto& [ns, n] : b.cxx_abi) c[ns] = {{"cxx11", n.cxx11}, {"pre_cxx11", n.pre_cxx11}};
      j["cxx_abi"] = c;
    }
  } else if (b.format == "macho") {
    json slices = json::array();
    for (const auto& s : b.slices)
      slices.push_back(
          {{"arch", s.arch}, {"minos", s.minos}, {"sdk", s.sdk}, {"dylibs", s.dylibs}, {"rpaths", s.rpaths}});
    j["slices"] = slices;
  } else if (b.format == "pe") {
    j["machine"] = b.machine;
    j["dlls"] = b.dlls;
    if (!b.python_dll_imports.empty()) j["python_dll_imports"] = b.python_dll_imports;
  }
  // The Python C-API the binary imports (what WC511 audits for abi3 wheels).
  std::vector<std::string> py;
  for (const auto sym : imported_names(b))
    if (sym.starts_with("Py") || sym.starts_with("_Py")) py.emplace_back(sym);
  std::sort(py.begin(), py.end());
  py.erase(std::unique(py.begin(), py.end()), py.end());
  if (!py.empty()) j["python_api_imports"] = py;
  if (!b.cuda_toolkit.empty()) j["cuda_toolkit"] = b.cuda_toolkit;
  if (!b.hip.empty()) {
    json h = {{"targets", b.hip.targets}, {"processors", b.hip.processors()}};
    if (!b.hip.compression.empty()) h["compression"] = b.hip.compression;
    if (!b.hip.error.empty()) h["error"] = b.hip.error;
    j["hip"] = h;
  }
  if (!b.fatbin.empty()) {
    j["sass"] = b.fatbin.sass();
    j["ptx"] = b.fatbin.ptx();
    json entries = json::array();
    for (const auto& e : b.fatbin.entries) {
      json x = {{"kind", e.kind == FatbinEntry::ptx ? "ptx" : "sass"},
                {"arch", e.name()},
                {"sm", e.sm},
                {"compression", e.compression},
                {"payload_size", e.payload_size},
                {"uncompressed_size", e.uncompressed_size},
                {"offset", e.offset},
                {"container", e.container}};
      if (e.kind == FatbinEntry::ptx)
        x["ptx_isa"] = std::to_string(e.version_major) + "." + std::to_string(e.version_minor);
      if (e.cubin_sm) x["cubin_sm"] = *e.cubin_sm;
      if (e.has_kernels) x["has_kernels"] = *e.has_kernels;
      entries.push_back(x);
    }
    j["fatbin"] = {{"containers", b.fatbin.containers}, {"entries", entries}};
  }
  if (!b.errors.empty()) j["errors"] = b.errors;
  if (!b.warnings.empty()) j["warnings"] = b.warnings;
  return j;
}

void settle_gpu_facts(BinaryFacts& b) { b.cuda_toolkit = b.fatbin.newest_toolkit(); }

std::string sniff_binary(const uint8_t* p, size_t n) {
  auto be = [&](size_t o) {
    return o + 4 <= n ? (uint32_t(p[o]) << 24) | (uint32_t(p[o + 1]) << 16) | (uint32_t(p[o + 2]) << 8) | p[o + 3] : 0u;
  };
  if (n >= 4 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') return "elf";
  if (n >= 8 && is_macho_magic(be(0), be(4))) return "macho";
  if (n >= 64 && p[0] == 'M' && p[1] == 'Z') return "pe";
  if (n >= 16 && be(0) == 0x50ED55BA) return "fatbin";  // 0xBA55ED50 little-endian
  return "";
}

bool MachOSlice::exports_name(std::string_view name) const {
  if (exports_hashed) return std::binary_search(export_hashes.begin(), export_hashes.end(), DynamicSymbols::hash(name));
  return std::binary_search(exports.begin(), exports.end(), name);
}

std::vector<std::string> MachOSlice::export_namespaces() const {
  if (exports_hashed) return hashed_namespaces;
  std::set<std::string, std::less<>> out;
  for (const auto& e : exports) {
    if (auto ns = classify_mangled(macho_c_name(e)).namespaces; !ns.empty() && !out.count(ns.front()))
      out.emplace(ns.front());
  }
  return {out.begin(), out.end()};
}

void MachOSlice::hash_exports() {
  if (exports_hashed) return;
  hashed_namespaces = export_namespaces();
  export_hashes.reserve(exports.size());
  for (const auto& e : exports) export_hashes.push_back(DynamicSymbols::hash(e));
  std::sort(export_hashes.begin(), export_hashes.end());
  std::vector<std::string>().swap(exports);
  exports_hashed = true;
}

std::string sniff_binary(const uint8_t* p, size_t n, std::string_view name) {
  std::string kind = sniff_binary(p, n);
  if (kind.empty() && n >= 8 && p[0] == 0xca && p[1] == 0xfe && p[2] == 0xba && (p[3] == 0xbe || p[3] == 0xbf) &&
      is_native_library_name(name))
    return "macho";
  return kind;
}

void parse_elf_image(const uint8_t* p, size_t n, BinaryFacts& out) {
  SparseFile f(n);
  f.add(0, p, n);
  out.format = "elf";
  FatbinScanner scanner;
  scanner.feed(p, n);
  try {
    ElfLayout layout = read_elf(f, out);
    merge_fatbins(out.fatbin, select_fatbins(scanner, layout.nv_fatbin, out.errors));
  } catch (const ParseError& e) {
    out.errors.push_back(std::string(e.what()) + " (offset " + std::to_string(e.offset()) + ")");
    // The section table cannot be trusted: containers found anywhere in the image still count
    // (as the streaming capture reports them).
    out.fatbin = select_fatbins(scanner, std::nullopt, out.errors);
  }
  settle_gpu_facts(out);
}

void parse_binary_image(const uint8_t* p, size_t n, BinaryFacts& out) {
  std::string kind = sniff_binary(p, n);
  if (kind == "elf") return parse_elf_image(p, n, out);
  if (kind == "fatbin") {
    out.format = "fatbin";
    out.arch = "cuda";
    FatbinScanner scanner;
    scanner.feed(p, n);
    out.fatbin = select_fatbins(scanner, ByteRange{0, n}, out.errors);
    settle_gpu_facts(out);
    return;
  }
  SparseFile f(n);
  f.add(0, p, n);
  try {
    if (kind == "macho")
      read_macho(f, out);
    else if (kind == "pe") {
      if (auto nv_fatb = read_pe(f, out)) {
        FatbinScanner scanner;
        scanner.feed(p, n);
        out.fatbin = select_fatbins(scanner, nv_fatb, out.errors);
      }
    } else
      out.errors.push_back("not an ELF, Mach-O, PE or fatbin file");
  } catch (const ParseError& e) {
    out.errors.push_back(std::string(e.what()) + " (offset " + std::to_string(e.offset()) + ")");
  }
  settle_gpu_facts(out);
}

}  // namespace wc
