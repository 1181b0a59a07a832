// The RFC 822 style files of a wheel: WHEEL and METADATA (core metadata 1.0 - 2.4), and RECORD (CSV).
#pragma once

#include <map>
#include <memory>
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

// A row's fields view the bytes its RecordFile holds (unquoted, backslashes read as '/'): no
// allocation per field, 200,000 of them for a RECORD of 100,000 rows. They live as long as the
// RecordFile, which moves without moving those bytes and cannot be copied.
struct RecordRow {
  std::string_view path;
  std::string_view hash;  // "algo=digest" or empty
  std::string_view size;  // decimal or empty
  size_t line = 0;
};

struct RecordFile {
  std::vector<RecordRow> rows;
  std::vector<std::string> problems;  // CSV syntax, wrong column counts (WC301)

  RecordFile() = default;
  RecordFile(RecordFile&&) noexcept = default;
  RecordFile& operator=(RecordFile&&) noexcept = default;
  RecordFile(const RecordFile&) = delete;
  RecordFile& operator=(const RecordFile&) = delete;

 private:
  friend RecordFile parse_record(std::string_view text);
  std::unique_ptr<char[]> fields_;  // every row's fields back to back (no longer than the text)
};

// CSV as Python's csv module reads it (default dialect: ',' delimiter, '"' quotes doubled inside
// quoted fields, \r\n, \n or \r line ends).
RecordFile parse_record(std::string_view text);

}  // namespace wc
