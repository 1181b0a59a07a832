// JSON from outside (policy files, index pages, reports to merge, suite cases): parsed with
// nlohmann::json behind one function that never throws, bounds the nesting depth first (our
// walkers recurse per level), and reports every failure nlohmann can raise (syntax, numbers out of
// range, invalid UTF-8) as an error string with the byte position where it has one.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wc {

struct JsonError {
  std::string message;
  size_t byte = 0;  // 1-based position of the problem, 0 when unknown
};

// `callback` (nlohmann's parser callback) may drop values while parsing, so a huge document is
// walked in bounded memory. Beware: with a callback, nlohmann scans the enclosing container after
// every object it closes (for discarded values), quadratic in a container it keeps growing; use it
// only where each kept container stays small, and parse_json_pruned otherwise.
std::optional<nlohmann::json> parse_json(std::string_view text, JsonError* error = nullptr, size_t max_depth = 64,
                                         const nlohmann::json::parser_callback_t& callback = nullptr);

// Where a value starts: how many containers enclose it, the member key at each enclosing object
// level ("" for an array level), and its position among its container's values (dropped ones
// counted).
struct JsonPlace {
  size_t depth = 0;
  const std::vector<std::string>* keys = nullptr;
  size_t index = 0;
};
// Parses as parse_json does, asking `keep` at the start of each value whether to build it: a value
// it refuses (and everything inside it) is skipped in linear time and left out of its container.
// `done`, when given, sees each built object or array below the root once it is complete (with how
// many containers enclose it); returning false takes it out of its container again (an index page's
// file objects are read and dropped one by one).
std::optional<nlohmann::json> parse_json_pruned(std::string_view text,
                                                const std::function<bool(const JsonPlace&)>& keep,
                                                JsonError* error = nullptr, size_t max_depth = 64,
                                                const std::function<bool(size_t, nlohmann::json&)>& done = nullptr);
// Reads and parses a file (at most `max_bytes`); throws std::runtime_error naming the file and the
// problem ("x.json: not valid JSON: ... (byte 17)").
nlohmann::json read_json_file(const std::string& path, size_t max_bytes = 256u << 20);

}  // namespace wc
