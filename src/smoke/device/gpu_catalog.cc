#include "smoke/device/gpu_catalog.h"

#include <algorithm>
#include <map>

#include "policy/policy.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc::smoke {
namespace {

std::string squash(const std::string& s) {
  std::string out;
  for (char c : s)
    if (is_alnum(c)) out += ascii_lower(c);
  return out;
}

// The tables live in policies/cuda.json (one home, shared with wheelcheck's CUDA rules).
const CudaPolicy& tables() {
  static const Policy p = load_policy("default");
  return p.cuda;
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
  for (const auto& [n, cc] : tables().gpus)
    if (squash(n) == want) return parse_sm(cc);
  return std::nullopt;
}

std::vector<std::string> known_gpus() {
  std::vector<std::string> v;
  for (const auto& [n, cc] : tables().gpus) v.push_back(n + " (" + cc + ")");
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
  for (const auto& [cuda, ga] : tables().ga_drivers)
    if (compare_dotted(driver, ga) >= 0) best = cuda;
  return best;
}

std::optional<std::string> ptx_isa_min_cuda(const std::string& isa) {
  const auto& t = tables().ptx_isa_min_cuda;
  auto it = t.find(isa);
  if (it != t.end()) return it->second;
  if (compare_dotted(isa, "7.8") < 0) return std::string("11.0");  // older PTX: any CUDA 11+ driver
  return std::nullopt;
}

std::optional<std::string> runtime_driver_floor(int cuda_major) {
  const auto& t = tables().runtime_driver_floor;
  auto it = t.find(cuda_major);
  return it == t.end() ? std::nullopt : std::optional(it->second);
}

std::optional<int> cudart_major(const std::string& soname) {
  std::string_view v = soname;
  uint64_t major = 0;
  if (!consume(v, "libcudart.so.") || !consume_number(v, 999, major) || !(v.empty() || v.front() == '.'))
    return std::nullopt;
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
