#include "facts/cuda_facts.h"

#include <set>

#include "binary/binary_facts.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {

using nlohmann::json;

std::optional<CudaVariant> parse_cuda_variant(const std::string& label) {
  std::string l = to_lower(label);
  if (l == "cpu") return CudaVariant{"cpu", 0, 0, ""};
  // cuXY[Z]: the last digit is the minor version, the rest (two or three digits) the major.
  std::string_view d = l;
  if (!consume(d, "cu") || !all_digits(d) || d.size() < 3 || d.size() > 4) return std::nullopt;
  int major = *parse_small(d.substr(0, d.size() - 1)), minor = d.back() - '0';
  return CudaVariant{l, major, minor, ""};
}

static std::optional<CudaVariant> from_version_string(const std::string& v) {
  auto parts = split(v, '.');
  if (parts.size() < 2) return std::nullopt;
  auto ma = parse_small(parts[0], 999), mi = parse_small(parts[1], 9);
  if (!ma || !mi) return std::nullopt;
  return CudaVariant{"cu" + std::to_string(*ma) + std::to_string(*mi), *ma, *mi, "version file"};
}

// nvidia-cudnn-cu12 -> 12; nvidia-cuda-runtime==13.0.48 -> 13 (CUDA 13 names drop the suffix,
// and only the toolkit's own packages version with CUDA).
static std::optional<CudaPin> parse_pin(const std::string& req, const CudaPolicy& cuda) {
  // PEP 508: the name comes first ([A-Za-z0-9][A-Za-z0-9._-]*), after optional blanks.
  std::string_view r = req;
  while (!r.empty() && (r.front() == ' ' || r.front() == '\t')) r.remove_prefix(1);
  size_t n = 0;
  while (n < r.size() && (is_alnum(r[n]) || ((r[n] == '.' || r[n] == '_' || r[n] == '-') && n > 0))) ++n;
  if (n == 0) return std::nullopt;
  std::string name = canonicalize_name(r.substr(0, n));
  if (name.rfind("nvidia-", 0) != 0) return std::nullopt;
  auto dash = name.rfind("-cu");
  if (dash != std::string::npos && all_digits(std::string_view(name).substr(dash + 3))) {
    auto major = parse_small(std::string_view(name).substr(dash + 3), 999);
    return major ? std::optional(CudaPin{req, name, *major}) : std::nullopt;
  }
  if (!cuda.toolkit_versioned_packages.count(name)) return std::nullopt;
  // The first ==, ~= or >= clause before any marker names the CUDA major: "==13.0.48" -> 13.
  std::string_view rest = r.substr(n);
  rest = rest.substr(0, rest.find(';'));
  for (size_t i = 0; i + 1 < rest.size(); ++i) {
    std::string_view op = rest.substr(i, 2);
    if (op != "==" && op != "~=" && op != ">=") continue;
    std::string_view v = rest.substr(i + 2);
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    uint64_t major = 0;
    if (consume_number(v, 999, major) && consume(v, ".")) return CudaPin{req, name, static_cast<int>(major)};
  }
  return std::nullopt;
}

CudaFacts derive_cuda_facts(const WheelFacts& f, const CudaPolicy& cuda) {
  CudaFacts c;
  if (cuda.variant) {
    c.variant = parse_cuda_variant(*cuda.variant);
    if (c.variant) c.variant->source = "policy";
  }
  if (!c.variant && f.filename.version)
    for (const auto& seg : f.filename.version->local)
      if (auto v = parse_cuda_variant(seg)) {
        c.variant = v;
        c.variant->source = "local version +" + seg;
      }
  // A PEP 825 variant label names the variant the way PyTorch labels them: "cu128" or "cuda12.8".
  if (!c.variant && f.filename.variant_label) {
    const std::string& l = *f.filename.variant_label;
    auto v = parse_cuda_variant(l);
    if (!v && l.starts_with("cuda")) v = from_version_string(l.substr(4));
    if (v) {
      c.variant = v;
      c.variant->source = "variant label " + l;
    }
  }
  if (cuda.version_file && cuda.version_file->regex) {
    auto it = f.captured.find(cuda.version_file->path);
    std::string value;
    if (it != f.captured.end() && cuda.version_file->regex->search(it->second, &value) && !value.empty())
      c.version_file_value = value;
  }
  if (!c.variant && c.version_file_value) c.variant = from_version_string(*c.version_file_value);
  const auto& soname_major = cuda.runtime_sonames;
  std::set<std::string> sass, ptx;
  for (const auto& b : f.binaries) {
    for (const auto& n : b.needed)
      if (auto it = soname_major.find(n); it != soname_major.end()) c.links.push_back({b.path, n, it->second});
    // Windows: the imported DLLs (cudart64_12.dll), named case-insensitively; the table keeps them
    // in lower case.
    for (const auto& dll : b.dlls)
      if (auto it = soname_major.find(to_lower(dll)); it != soname_major.end())
        c.links.push_back({b.path, dll, it->second});
    if (!b.cuda_toolkit.empty()) c.toolkits.push_back({b.path, b.cuda_toolkit});
    for (const auto& s : b.fatbin.sass()) sass.insert(s);
    for (const auto& p : b.fatbin.ptx()) ptx.insert(p);
    c.any_gpu_code |= !b.fatbin.empty();
  }
  c.sass.assign(sass.begin(), sass.end());
  c.ptx.assign(ptx.begin(), ptx.end());
  if (f.metadata)
    for (const auto& r : f.metadata->get_all("Requires-Dist"))
      if (auto p = parse_pin(r, cuda)) c.pins.push_back(*p);
  return c;
}

json cuda_facts_to_json(const CudaFacts& c) {
  json j = json::object();
  if (c.variant)
    j["variant"] = {{"name", c.variant->name},
                    {"version", c.variant->cpu() ? "" : c.variant->version()},
                    {"source", c.variant->source}};
  if (c.version_file_value) j["version_file"] = *c.version_file_value;
  json links = json::array();
  for (const auto& l : c.links) links.push_back({{"binary", l.binary}, {"soname", l.soname}, {"cuda_major", l.major}});
  j["runtime_links"] = links;
  json pins = json::array();
  for (const auto& p : c.pins)
    pins.push_back({{"package", p.package}, {"requirement", p.requirement}, {"cuda_major", p.major}});
  j["pins"] = pins;
  json tk = json::array();
  for (const auto& t : c.toolkits) tk.push_back({{"binary", t.binary}, {"cuda_toolkit", t.version}});
  j["toolkits"] = tk;
  j["sass"] = c.sass;
  j["ptx"] = c.ptx;
  return j;
}

}  // namespace wc
