#include "policy/project_config.h"

#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "util/parse.h"

namespace wc {
namespace fs = std::filesystem;

namespace {

constexpr uintmax_t kMaxPyproject = 4u << 20;  // a pyproject.toml larger than this is not one
constexpr size_t kMaxTomlNesting = 128;

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

// toml++ parses, copies and destroys nested tables and arrays recursively: 500,000 of them
// overflowed the stack, wherever in the file. Before it sees the text, one linear pass measures the
// deepest nesting: brackets and braces outside strings and comments, plus the dots of a dotted key
// (`a.b.c = 1` nests three tables). Returns the 1-based line past `limit`, or 0.
size_t toml_nesting_over(std::string_view t, size_t limit) {
  size_t depth = 0, dots = 0, line = 1;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c == '\n') {
      ++line, dots = 0;
    } else if (c == '#') {
      while (i + 1 < t.size() && t[i + 1] != '\n') ++i;
    } else if (c == '"' || c == '\'') {
      bool multi = t.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''");
      size_t from = i + (multi ? 3 : 1);
      for (i = from; i < t.size(); ++i) {
        if (c == '"' && t[i] == '\\') {
          ++i;
          continue;
        }
        if (t[i] == '\n') ++line;
        if (t[i] == c && (!multi || t.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''"))) {
          if (multi) i += 2;
          break;
        }
        if (!multi && t[i] == '\n') break;  // a single-line string ends at the line (toml++ reports it)
      }
    } else if (c == '[' || c == '{') {
      ++depth, dots = 0;
    } else if (c == ']' || c == '}') {
      depth -= depth > 0;
    } else if (c == ',' || c == '=') {
      dots = 0;
    } else if (c == '.' && !(i > 0 && is_digit(t[i - 1]) && i + 1 < t.size() && is_digit(t[i + 1]))) {
      ++dots;  // a key's dot, not a number's
    }
    if (depth + dots > limit) return line;
  }
  return 0;
}

}  // namespace

std::optional<ProjectConfig> read_project_config(const std::string& file) {
  std::error_code ec;
  auto size = fs::file_size(file, ec);
  if (ec) throw std::runtime_error(file + ": cannot read: " + ec.message());
  if (size > kMaxPyproject)
    throw std::runtime_error(file + ": " + std::to_string(size) + " bytes, more than a pyproject.toml holds (" +
                             std::to_string(kMaxPyproject) + ")");
  std::string text;
  {
    std::ifstream in(file, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (size_t line = toml_nesting_over(text, kMaxTomlNesting))
    throw std::runtime_error(file + ":" + std::to_string(line) + ": tables, arrays or dotted keys nested more than " +
                             std::to_string(kMaxTomlNesting) + " levels deep (not parsed)");
  toml::table doc;
  try {
    doc = toml::parse(text, file);
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
