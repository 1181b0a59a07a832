#include "policy/project_config.h"

#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace wc {
namespace fs = std::filesystem;

namespace {

constexpr uintmax_t kMaxPyproject = 4u << 20;  // a pyproject.toml larger than this is not one

// A TOML value as JSON (tables as objects, arrays as arrays; dates and times as their TOML text).
nlohmann::json to_json(const toml::node& n) {
  if (const auto* t = n.as_table()) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& [k, v] : *t) o[std::string(k.str())] = to_json(v);
    return o;
  }
  if (const auto* a = n.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : *a) out.push_back(to_json(v));
    return out;
  }
  if (const auto* s = n.as_string()) return s->get();
  if (const auto* i = n.as_integer()) return i->get();
  if (const auto* f = n.as_floating_point()) return f->get();
  if (const auto* b = n.as_boolean()) return b->get();
  std::ostringstream text;
  n.visit([&](const auto& v) { text << v; });
  return text.str();
}

std::string where(const std::string& file, const toml::node& n) {
  return file + ":" + std::to_string(n.source().begin.line);
}

std::vector<std::string> string_list(const std::string& file, const toml::node& n, const char* key) {
  std::vector<std::string> out;
  if (const auto* s = n.as_string()) {
    out.push_back(s->get());  // one rule, written without the brackets
    return out;
  }
  const auto* a = n.as_array();
  if (!a) throw std::runtime_error(where(file, n) + ": [tool.wheelcheck] " + key + " must be a list of strings");
  for (const auto& v : *a) {
    const auto* s = v.as_string();
    if (!s) throw std::runtime_error(where(file, v) + ": [tool.wheelcheck] " + key + " must be a list of strings");
    out.push_back(s->get());
  }
  return out;
}

}  // namespace

std::optional<ProjectConfig> read_project_config(const std::string& file) {
  std::error_code ec;
  auto size = fs::file_size(file, ec);
  if (ec) throw std::runtime_error(file + ": cannot read: " + ec.message());
  if (size > kMaxPyproject)
    throw std::runtime_error(file + ": " + std::to_string(size) + " bytes, more than a pyproject.toml holds (" +
                             std::to_string(kMaxPyproject) + ")");
  toml::table doc;
  try {
    doc = toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    throw std::runtime_error(file + ":" + std::to_string(e.source().begin.line) +
                             ": not valid TOML: " + std::string(e.description()));
  }
  const toml::node* tool = doc.get("tool");
  const toml::table* table = tool && tool->as_table() ? tool->as_table()->get_as<toml::table>("wheelcheck") : nullptr;
  if (!table) {
    if (tool && tool->as_table() && tool->as_table()->contains("wheelcheck"))
      throw std::runtime_error(file + ": tool.wheelcheck must be a table ([tool.wheelcheck])");
    return std::nullopt;
  }
  ProjectConfig c;
  c.file = fs::absolute(file, ec).string();
  nlohmann::json overlay = nlohmann::json::object();
  for (const auto& [key, value] : *table) {
    const std::string k(key.str());
    if (k == "policy") {
      const auto* s = value.as_string();
      if (!s) throw std::runtime_error(where(file, value) + ": [tool.wheelcheck] policy must be a string");
      c.policy = s->get();
    } else if (k == "ignore") {
      c.ignore = string_list(file, value, "ignore");
    } else if (k == "select") {
      c.select = string_list(file, value, "select");
    } else if (k == "strict") {
      const auto* b = value.as_boolean();
      if (!b) throw std::runtime_error(where(file, value) + ": [tool.wheelcheck] strict must be true or false");
      c.strict = b->get();
    } else if (k == "extends") {
      throw std::runtime_error(where(file, value) + ": [tool.wheelcheck] names its base with policy = \"...\"");
    } else {
      overlay[k] = to_json(value);  // a policy key: checked against the policy schema when loaded
    }
  }
  c.policy_overlay = std::move(overlay);
  return c;
}

std::optional<ProjectConfig> find_project_config(const std::string& start) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  if (ec) return std::nullopt;
  for (;;) {
    fs::path candidate = dir / "pyproject.toml";
    if (fs::is_regular_file(candidate, ec))
      if (auto c = read_project_config(candidate.string())) return c;
    if (!dir.has_parent_path() || dir.parent_path() == dir) return std::nullopt;
    dir = dir.parent_path();
  }
}

}  // namespace wc
