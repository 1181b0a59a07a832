// JSON from outside (policy files, index pages, reports to merge, suite cases): parsed with
// nlohmann::json behind one function that never throws, bounds the nesting depth first (our
// walkers recurse per level), and reports every failure nlohmann can raise (syntax, numbers out of
// range, invalid UTF-8) as an error string with the byte position where it has one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace wc {

struct JsonError {
  std::string message;
  size_t byte = 0;  // 1-based position of the problem, 0 when unknown
};

// `callback` (nlohmann's parser callback) may drop values while parsing, so a huge document is
// walked in bounded memory.
std::optional<nlohmann::json> parse_json(std::string_view text, JsonError* error = nullptr, size_t max_depth = 64,
                                         const nlohmann::json::parser_callback_t& callback = nullptr);
// Reads and parses a file (at most `max_bytes`); throws std::runtime_error naming the file and the
// problem ("x.json: not valid JSON: ... (byte 17)").
nlohmann::json read_json_file(const std::string& path, size_t max_bytes = 256u << 20);

}  // namespace wc
