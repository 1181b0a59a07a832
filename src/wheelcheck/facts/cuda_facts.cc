#include "facts/cuda_facts.h"

#include <regex>
#include <set>

#include "binary/binary_facts.h"
#include "util/strings.h"

namespace wc {

using nlohmann::json;

std::optional<CudaVariant> parse_cuda_variant(const std::string& label) {
  std::string l = to_lower(label);
  if (l == "cpu") return CudaVariant{"cpu", 0, 0, ""};
  static const std::regex re("^cu([0-9]{2,3})([0-9])$");
  std::smatch m;
  if (!std::regex_match(l, m, re)) return std::nullopt;
  return CudaVariant{l, std::stoi(m[1]), std::stoi(m[2]), ""};
}

static std::optional<CudaVariant> from_version_string(const std::string& v) {
  auto parts = split(v, '.');
  if (parts.size() < 2) return std::nullopt;
  try {
    int ma = std::stoi(std::string(parts[0])), mi = std::stoi(std::string(parts[1]));
    return CudaVariant{"cu" + std::to_string(ma) + std::to_string(mi), ma, mi, "version file"};
  } catch (...) {
    return std::nullopt;
  }
}

// nvidia-cudnn-cu12 -> 12; nvidia-cuda-runtime==13.0.48 -> 13 (CUDA 13 names drop the suffix,
// and only the toolkit's own packages version with CUDA).
static std::optional<CudaPin> parse_pin(const std::string& req, const json& cuda) {
  static const std::regex name_re("^\\s*([A-Za-z0-9][A-Za-z0-9._-]*)");
  std::smatch m;
  if (!std::regex_search(req, m, name_re)) return std::nullopt;
  std::string name = canonicalize_name(m[1].str());
  if (name.rfind("nvidia-", 0) != 0) return std::nullopt;
  static const std::regex suffix("-cu([0-9]+)$");
  std::smatch s;
  if (std::regex_search(name, s, suffix)) return CudaPin{req, name, std::stoi(s[1])};
  bool versioned = false;
  for (const auto& p : cuda.value("toolkit_versioned_packages", json::array())) versioned |= p.get<std::string>() == name;
  if (!versioned) return std::nullopt;
  static const std::regex pin("(==|~=|>=)\\s*([0-9]+)\\.");
  std::string rest = req.substr(static_cast<size_t>(m.length(0)));
  rest = rest.substr(0, rest.find(';'));
  if (!std::regex_search(rest, s, pin)) return std::nullopt;
  return CudaPin{req, name, std::stoi(s[2])};
}

CudaFacts derive_cuda_facts(const WheelFacts& f, const json& cuda) {
  CudaFacts c;
  if (cuda.contains("variant")) {
    c.variant = parse_cuda_variant(cuda["variant"]);
    if (c.variant) c.variant->source = "policy";
  }
  if (!c.variant && f.filename.version)
    for (const auto& seg : f.filename.version->local)
      if (auto v = parse_cuda_variant(seg)) {
        c.variant = v;
        c.variant->source = "local version +" + seg;
      }
  if (cuda.contains("version_file")) {
    std::string path = cuda["version_file"]["path"];
    auto it = f.captured.find(path);
    if (it != f.captured.end()) {
      std::regex re(cuda["version_file"]["regex"].get<std::string>(), std::regex::multiline);
      std::smatch m;
      if (std::regex_search(it->second, m, re) && m.size() > 1) c.version_file_value = m[1].str();
    }
  }
  if (!c.variant && c.version_file_value) c.variant = from_version_string(*c.version_file_value);
  std::map<std::string, int> soname_major;
  const json sonames = cuda.value("runtime_sonames", json::object());
  for (const auto& [major, names] : sonames.items())
    for (const auto& n : names) soname_major[n] = std::stoi(major);
  std::set<std::string> sass, ptx;
  for (const auto& b : f.binaries) {
    for (const auto& n : b.needed)
      if (soname_major.count(n)) c.links.push_back({b.path, n, soname_major[n]});
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
  if (c.variant) j["variant"] = {{"name", c.variant->name}, {"version", c.variant->cpu() ? "" : c.variant->version()}, {"source", c.variant->source}};
  if (c.version_file_value) j["version_file"] = *c.version_file_value;
  json links = json::array();
  for (const auto& l : c.links) links.push_back({{"binary", l.binary}, {"soname", l.soname}, {"cuda_major", l.major}});
  j["runtime_links"] = links;
  json pins = json::array();
  for (const auto& p : c.pins) pins.push_back({{"package", p.package}, {"requirement", p.requirement}, {"cuda_major", p.major}});
  j["pins"] = pins;
  json tk = json::array();
  for (const auto& t : c.toolkits) tk.push_back({{"binary", t.binary}, {"cuda_toolkit", t.version}});
  j["toolkits"] = tk;
  j["sass"] = c.sass;
  j["ptx"] = c.ptx;
  return j;
}

}  // namespace wc
