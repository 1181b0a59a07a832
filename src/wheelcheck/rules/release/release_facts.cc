#include "rules/release/release_facts.h"

#include <zstd.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "rules/loader/resolution.h"
#include "util/budget.h"
#include "util/digest.h"
#include "util/strings.h"
#include "wheel/entry_names.h"

namespace wc {
namespace {

constexpr uint64_t kMaxUnpacked = 256u << 20;

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Sorted and each once: the names are charged as they are met (a table naming one 8 MiB string a
// million times stops at the budget here, before anything is sorted), sorted as views into the
// string table (a library repeats a name for each version it defines), then copied once each.
std::vector<std::string> elf_exports(const BinaryFacts& b) {
  std::vector<std::string> out;
  if (!b.symbols) return out;
  static constexpr std::string_view kReserved[] = {"_end", "_edata", "__bss_start", "_init", "_fini"};
  std::vector<std::string_view> nodes(b.version_defs.begin(), b.version_defs.end());  // version names
  std::sort(nodes.begin(), nodes.end());
  const DynamicSymbols& d = *b.symbols;
  std::vector<std::string_view> names;
  names.reserve(d.defined().size());
  for (const auto& s : d.defined()) {
    std::string_view n = d.name(s);
    if (n.empty() || std::find(std::begin(kReserved), std::end(kReserved), n) != std::end(kReserved) ||
        std::binary_search(nodes.begin(), nodes.end(), n))
      continue;
    charge_memory(n.size() + sizeof(std::string), "export names");
    names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  out.reserve(names.size());
  for (std::string_view n : names) out.emplace_back(n);
  return out;
}

}  // namespace

std::vector<BinarySummary> summarize_binaries(const WheelFacts& f) {
  std::vector<BinarySummary> out;
  for (const auto& b : f.binaries) {
    if (b.format != "elf" && b.format != "macho" && b.format != "pe") continue;
    if (b.format == "elf" && device_processor(b.arch)) continue;
    BinarySummary s;
    s.path = b.path;
    s.format = b.format;
    s.sass = b.fatbin.sass();
    s.ptx = b.fatbin.ptx();
    if (b.format == "elf") {
      s.soname = b.soname;
      s.needed = b.needed;
      s.floors = b.max_symbol_versions();
      s.exports = elf_exports(b);
      s.exports_known = b.symbols != nullptr && !b.headers_only;
    } else if (b.format == "macho") {
      s.exports_known = !b.slices.empty() && !b.headers_only;
      for (const auto& sl : b.slices) {
        if (s.soname.empty()) s.soname = sl.install_name;
        s.needed.insert(s.needed.end(), sl.dylibs.begin(), sl.dylibs.end());
        s.exports.insert(s.exports.end(), sl.exports.begin(), sl.exports.end());
        s.exports_known = s.exports_known && sl.exports_read;
        if (!sl.minos.empty() && (!s.floors.count("macos") || compare_dotted(sl.minos, s.floors["macos"]) > 0))
          s.floors["macos"] = sl.minos;
      }
      sort_unique(s.exports);
    } else {
      s.needed = b.dlls;
      s.exports = b.pe_exports;
      s.exports_known = b.pe_exports_read;
      sort_unique(s.exports);
    }
    if (!s.exports_known) s.exports.clear();  // elf_exports gave them sorted and each once
    sort_unique(s.needed);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> entry_point_names(const WheelFacts& f) {
  std::vector<std::string> out;
  auto it = f.captured.find(f.dist_info + "/entry_points.txt");
  if (f.dist_info.empty() || it == f.captured.end()) return out;
  std::string section;
  for (std::string_view line : split(it->second, '\n')) {
    std::string_view t = trim(line);
    if (t.empty() || t.front() == '#' || t.front() == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      section = std::string(trim(t.substr(1, t.size() - 2)));
      continue;
    }
    auto eq = t.find('=');
    if (section.empty() || eq == std::string_view::npos) continue;
    std::string_view name = trim(t.substr(0, eq));
    if (!name.empty()) out.push_back(section + ":" + std::string(name));
  }
  sort_unique(out);
  return out;
}

std::vector<std::string> top_level_names(const WheelFacts& f) {
  std::vector<std::string> out;
  // A package's entries mostly follow each other: a name is added once per run of them, not once
  // per entry (100,000 entries of one package were 100,000 strings sorted into one).
  auto add = [&](std::string_view name) {
    if (out.empty() || out.back() != name) out.emplace_back(name);
  };
  for (const auto& e : f.entries) {
    // Only what lands in site-packages names a top-level import (environment_path's library paths),
    // as views of the entry's name: no copy per entry.
    const auto t = install_target_view(e.name);
    if (!t || !t->library() || t->path.empty() || t->path.starts_with("<data>/")) continue;
    const std::string_view p = t->path;
    std::string_view first = p;
    auto slash = first.find('/');
    if (slash != std::string_view::npos) {
      first = first.substr(0, slash);
      if (first.ends_with(".dist-info") || first.ends_with(".data") || first.ends_with(".libs") ||
          first == "__pycache__" || first.starts_with('.'))
        continue;
      add(first);
      continue;
    }
    // A module at the top: name.py or an extension module (name.cpython-312-x86_64-linux-gnu.so).
    std::string_view leaf = first;
    if (leaf.ends_with(".py")) {
      add(leaf.substr(0, leaf.size() - 3));
    } else if (is_extension_module(p)) {
      add(leaf.substr(0, leaf.find('.')));
    }
  }
  sort_unique(out);
  return out;
}

std::string pack_names(const std::vector<std::string>& sorted) {
  std::string text;
  std::string_view prev;
  for (const auto& n : sorted) {
    size_t k = 0, cap = std::min<size_t>({prev.size(), n.size(), 255});
    while (k < cap && prev[k] == n[k]) ++k;
    std::string_view rest = std::string_view(n).substr(k);
    if (rest.find('\n') != std::string_view::npos) continue;  // a name with a newline is no symbol
    text += static_cast<char>(k);
    text += rest;
    text += '\n';
    prev = n;
  }
  if (text.empty()) return "";
  std::string z(ZSTD_compressBound(text.size()), '\0');
  size_t n = ZSTD_compress(z.data(), z.size(), text.data(), text.size(), 6);
  if (ZSTD_isError(n)) throw std::runtime_error(std::string("compressing export names: ") + ZSTD_getErrorName(n));
  z.resize(n);
  return base64_encode(z);
}

std::optional<std::vector<std::string>> unpack_names(const std::string& packed) {
  std::vector<std::string> out;
  if (packed.empty()) return out;
  std::string z;
  if (!base64_decode(packed, &z)) return std::nullopt;
  unsigned long long size = ZSTD_getFrameContentSize(z.data(), z.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > kMaxUnpacked) return std::nullopt;
  charge_memory(size, "baseline export names");
  std::string text(size, '\0');
  size_t n = ZSTD_decompress(text.data(), text.size(), z.data(), z.size());
  if (ZSTD_isError(n) || n != size) return std::nullopt;
  std::string prev;
  for (size_t at = 0; at < text.size();) {
    // The shared-prefix byte first (it may itself be 10, a newline), then the rest to its newline.
    size_t k = static_cast<unsigned char>(text[at]);
    size_t end = text.find('\n', at + 1);
    if (end == std::string::npos) return std::nullopt;
    if (k > prev.size()) return std::nullopt;
    std::string name = prev.substr(0, k) + text.substr(at + 1, end - at - 1);
    if (!out.empty() && name <= out.back()) return std::nullopt;  // not sorted: not our blob
    out.push_back(name);
    prev = std::move(name);
    at = end + 1;
  }
  return out;
}

nlohmann::json binary_summary_to_json(const BinarySummary& b) {
  nlohmann::json j = {{"path", b.path}, {"format", b.format}, {"needed", b.needed}, {"floors", b.floors}};
  if (!b.soname.empty()) j["soname"] = b.soname;
  if (!b.sass.empty() || !b.ptx.empty()) j["sass"] = b.sass, j["ptx"] = b.ptx;
  if (b.exports_known) j["exports"] = {{"count", b.exports.size()}, {"names_zstd", pack_names(b.exports)}};
  return j;
}

BinarySummary binary_summary_from_json(const nlohmann::json& j) {
  BinarySummary b;
  b.path = j.at("path").get<std::string>();
  b.format = j.value("format", "");
  b.soname = j.value("soname", "");
  b.needed = j.value("needed", std::vector<std::string>{});
  b.floors = j.value("floors", std::map<std::string, std::string>{});
  b.sass = j.value("sass", std::vector<std::string>{});
  b.ptx = j.value("ptx", std::vector<std::string>{});
  if (j.contains("exports")) {
    const auto& e = j.at("exports");
    auto names = unpack_names(e.value("names_zstd", ""));
    if (!names || names->size() != e.value("count", size_t{0}))
      throw std::runtime_error("the exported names of " + clip_for_display(b.path, 200) +
                               " do not decode (names_zstd is not a packed, sorted name list of that count)");
    b.exports = std::move(*names);
    b.exports_known = true;
  }
  return b;
}

}  // namespace wc
