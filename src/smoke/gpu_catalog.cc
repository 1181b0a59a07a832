#include "smoke/gpu_catalog.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "util/parse.h"
#include "util/strings.h"

namespace wc::smoke {
namespace {

std::string squash(const std::string& s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const std::vector<std::pair<std::string, std::pair<int, int>>>& gpu_table() {
  static const std::vector<std::pair<std::string, std::pair<int, int>>> t = {
      {"V100", {7, 0}}, {"T4", {7, 5}},   {"A100", {8, 0}},     {"A10", {8, 6}},     {"A40", {8, 6}},
      {"RTX 3090", {8, 6}}, {"L4", {8, 9}}, {"L40S", {8, 9}},   {"RTX 4090", {8, 9}}, {"H100", {9, 0}},
      {"H200", {9, 0}}, {"GH200", {9, 0}}, {"B200", {10, 0}},   {"GB200", {10, 0}},  {"B300", {10, 3}},
      {"RTX 5090", {12, 0}}, {"RTX PRO 6000", {12, 0}}, {"DGX Spark", {12, 1}}};
  return t;
}

// CUDA version -> first Linux driver that supports it (GA releases).
const std::vector<std::pair<std::string, std::string>>& ga_drivers() {
  static const std::vector<std::pair<std::string, std::string>> t = {
      {"11.8", "520.61.05"}, {"12.0", "525.60.13"}, {"12.1", "530.30.02"}, {"12.2", "535.54.03"},
      {"12.3", "545.23.06"}, {"12.4", "550.54.14"}, {"12.5", "555.42.02"}, {"12.6", "560.28.03"},
      {"12.8", "570.26"},    {"12.9", "575.51.03"}, {"13.0", "580.65.06"}};
  return t;
}

bool suffix_ok(const FatbinEntry& e, const Target& t) {
  int major = static_cast<int>(e.sm / 10), minor = static_cast<int>(e.sm % 10);
  if (e.suffix == "a") return t.cc_major == major && t.cc_minor == minor;
  if (e.suffix == "f") return t.cc_major == major && t.cc_minor >= minor;
  return true;
}

}  // namespace

std::optional<std::pair<int, int>> gpu_compute_capability(const std::string& name) {
  std::string want = squash(name);
  for (const auto& [n, cc] : gpu_table())
    if (squash(n) == want) return cc;
  return std::nullopt;
}

std::vector<std::string> known_gpus() {
  std::vector<std::string> v;
  for (const auto& [n, cc] : gpu_table()) v.push_back(n + " (" + std::to_string(cc.first) + "." + std::to_string(cc.second) + ")");
  return v;
}

std::optional<std::pair<int, int>> parse_sm(const std::string& s) {
  // "9.0" (dotted), or "sm_90" / "compute_90" / "90", with an optional a/f suffix.
  std::string_view v = s;
  auto dot = v.find('.');
  if (dot != std::string_view::npos) {
    auto ma = parse_small(v.substr(0, dot), 99), mi = parse_small(v.substr(dot + 1), 9);
    if (!ma || !mi || v.size() - dot != 2) return std::nullopt;
    return std::make_pair(*ma, *mi);
  }
  if (!consume(v, "sm_")) consume(v, "compute_");
  if (!v.empty() && (v.back() == 'a' || v.back() == 'f')) v.remove_suffix(1);
  if (!all_digits(v) || v.size() < 2) return std::nullopt;
  auto ma = parse_small(v.substr(0, v.size() - 1), 99);
  if (!ma) return std::nullopt;
  return std::make_pair(*ma, v.back() - '0');
}

std::optional<std::string> driver_cuda_version(const std::string& driver) {
  auto parts = split(driver, '.');
  if (parts.size() > 3) return std::nullopt;
  for (auto p : parts)
    if (!all_digits(p) || p.size() > 6) return std::nullopt;
  std::optional<std::string> best;
  for (const auto& [cuda, ga] : ga_drivers())
    if (compare_dotted(driver, ga) >= 0) best = cuda;
  return best;
}

std::optional<std::string> ptx_isa_min_cuda(const std::string& isa) {
  static const std::map<std::string, std::string> t = {{"7.8", "11.8"}, {"8.0", "12.0"}, {"8.1", "12.1"}, {"8.2", "12.2"},
                                                       {"8.3", "12.3"}, {"8.4", "12.4"}, {"8.5", "12.5"}, {"8.6", "12.7"},
                                                       {"8.7", "12.8"}, {"8.8", "12.9"}, {"9.0", "13.0"}, {"9.1", "13.1"}};
  auto it = t.find(isa);
  if (it != t.end()) return it->second;
  if (compare_dotted(isa, "7.8") < 0) return std::string("11.0");  // older PTX: any CUDA 11+ driver
  return std::nullopt;
}

std::optional<std::string> runtime_driver_floor(int cuda_major) {
  switch (cuda_major) {
    case 11: return std::string("450.80.02");
    case 12: return std::string("525.60.13");
    case 13: return std::string("580");
    default: return std::nullopt;
  }
}

std::optional<int> cudart_major(const std::string& soname) {
  std::string_view v = soname;
  uint64_t major = 0;
  if (!consume(v, "libcudart.so.") || !consume_number(v, 999, major) || !(v.empty() || v.front() == '.')) return std::nullopt;
  return static_cast<int>(major);
}

bool sass_runs_on(const FatbinEntry& e, const Target& t) {
  if (e.kind != FatbinEntry::sass) return false;
  int major = static_cast<int>(e.sm / 10), minor = static_cast<int>(e.sm % 10);
  if (!suffix_ok(e, t)) return false;
  return t.cc_major == major && t.cc_minor >= minor;
}

bool ptx_targets(const FatbinEntry& e, const Target& t) {
  if (e.kind != FatbinEntry::ptx) return false;
  if (!suffix_ok(e, t)) return false;
  return t.cc() >= static_cast<int>(e.sm);
}

}  // namespace wc::smoke
