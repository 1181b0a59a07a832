#include "util/json_text.h"

#include <fstream>
#include <stdexcept>

namespace wc {
namespace {

// Deepest [ / { nesting outside strings, and where it first passes `limit` (0 if never).
size_t depth_over(std::string_view t, size_t limit) {
  size_t depth = 0;
  bool in_string = false, escape = false;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (in_string) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i + 1;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return 0;
}

}  // namespace

std::optional<nlohmann::json> parse_json(std::string_view text, JsonError* error, size_t max_depth,
                                         const nlohmann::json::parser_callback_t& callback) {
  if (size_t at = depth_over(text, max_depth)) {
    if (error) *error = {"nested more than " + std::to_string(max_depth) + " levels deep", at};
    return std::nullopt;
  }
  try {
    return nlohmann::json::parse(text.begin(), text.end(), callback);
  } catch (const nlohmann::json::parse_error& e) {
    std::string msg = e.what();
    auto p = msg.find("]: ");  // drop nlohmann's "[json.exception.parse_error.101] " prefix
    if (error) *error = {p == std::string::npos ? msg : msg.substr(p + 3), e.byte};
  } catch (const nlohmann::json::exception& e) {
    std::string msg = e.what();
    auto p = msg.find("] ");
    if (error) *error = {p == std::string::npos ? msg : msg.substr(p + 2), 0};
  }
  return std::nullopt;
}

nlohmann::json read_json_file(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw std::runtime_error(path + ": larger than " + std::to_string(max_bytes) + " bytes");
  }
  JsonError err;
  auto j = parse_json(text, &err);
  if (!j)
    throw std::runtime_error(path + ": not valid JSON: " + err.message +
                             (err.byte ? " (byte " + std::to_string(err.byte) + ")" : ""));
  return std::move(*j);
}

}  // namespace wc
