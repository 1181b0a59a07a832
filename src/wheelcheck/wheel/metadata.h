// The RFC 822 style files of a wheel: WHEEL and METADATA (core metadata 1.0 - 2.4), and RECORD (CSV).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wc {

// Header fields in file order; names compared case-insensitively, as email.parser does.
struct HeaderFile {
  std::vector<std::pair<std::string, std::string>> fields;
  std::string body;
  std::vector<std::string> problems;  // malformed lines, bad encoding

  std::optional<std::string> get(std::string_view name) const;  // first occurrence
  std::vector<std::string> get_all(std::string_view name) const;
  size_t count(std::string_view name) const;
};

// Parses header lines up to the first empty line; the rest is the body. Continuation lines (starting
// with space or tab) extend the previous field, joined with "\n" as email.parser keeps them.
HeaderFile parse_header_file(std::string_view text);

struct RecordRow {
  std::string path;
  std::string hash;  // "algo=digest" or empty
  std::string size;  // decimal or empty
  size_t line = 0;
};

struct RecordFile {
  std::vector<RecordRow> rows;
  std::vector<std::string> problems;  // CSV syntax, wrong column counts (WC301)
};

// CSV as Python's csv module reads it (default dialect: ',' delimiter, '"' quotes doubled inside
// quoted fields, \r\n, \n or \r line ends).
RecordFile parse_record(std::string_view text);

}  // namespace wc
