#include "wheel/metadata.h"

#include <algorithm>
#include <cstring>

#include "util/byte_scan.h"
#include "util/memory.h"
#include "util/strings.h"
#include "wheel/py_text.h"

namespace wc {

std::optional<std::string> HeaderFile::get(std::string_view name) const {
  for (const auto& [k, v] : fields)
    if (iequals(k, name)) return v;
  return std::nullopt;
}

std::vector<std::string> HeaderFile::get_all(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : fields)
    if (iequals(k, name)) out.push_back(v);
  return out;
}

size_t HeaderFile::count(std::string_view name) const {
  size_t n = 0;
  for (const auto& f : fields) n += iequals(f.first, name);
  return n;
}

static bool valid_field_name(std::string_view k) {
  if (k.empty()) return false;
  for (char c : k)
    if (c <= 32 || c >= 127 || c == ':') return false;
  return true;
}

HeaderFile parse_header_file(std::string_view text) {
  HeaderFile h;
  if (!is_valid_utf8(text)) h.problems.push_back("not valid UTF-8");
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    size_t next = eol == std::string_view::npos ? text.size() : eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {  // end of headers
      h.body = std::string(text.substr(next));
      return h;
    }
    if (line.front() == ' ' || line.front() == '\t') {
      if (h.fields.empty())
        h.problems.push_back("line " + std::to_string(line_no) + ": continuation line before any field");
      else
        h.fields.back().second += "\n" + std::string(line);
    } else {
      size_t colon = line.find(':');
      std::string_view key = colon == std::string_view::npos ? std::string_view() : line.substr(0, colon);
      if (!valid_field_name(key)) {
        h.problems.push_back("line " + std::to_string(line_no) + ": not a 'Name: value' field: '" +
                             escape_for_display(line.substr(0, 80)) + "'");
      } else {
        h.fields.emplace_back(std::string(key), std::string(trim(line.substr(colon + 1))));
      }
    }
    pos = next;
  }
  return h;
}

RecordFile parse_record(std::string_view text) {
  RecordFile rec;
  size_t lines = 1;  // find() is memchr: std::count went a byte at a time over a 7 MB RECORD
  for (size_t at = text.find('\n'); at != std::string_view::npos; at = text.find('\n', at + 1)) ++lines;
  reserve_filled_once(rec.rows, lines);
  // Each field byte comes from at least one byte of the text (a doubled quote gives one), so the
  // fields fit in the text's size: written once, viewed by the rows.
  rec.fields_ = std::make_unique_for_overwrite<char[]>(text.size() + 1);
  advise_huge_pages(rec.fields_.get(), text.size() + 1);
  char* const out = rec.fields_.get();
  size_t w = 0, field_start = 0;
  std::vector<std::string_view> row;
  auto field_empty = [&] { return w == field_start; };
  size_t i = 0, line = 1, row_line = 1;
  bool in_quotes = false, quoted_field = false, row_started = false;
  auto end_field = [&] {
    row.emplace_back(out + field_start, w - field_start);
    field_start = w;
    quoted_field = false;
  };
  auto end_row = [&] {
    end_field();
    if (row.size() == 1 && row[0].empty() && !row_started) {
      // blank line: csv.reader yields [] which RECORD readers skip
    } else if (row.size() != 3) {
      rec.problems.push_back("line " + std::to_string(row_line) + ": expected 3 fields (path,hash,size), found " +
                             std::to_string(row.size()));
    } else {
      // The spec lets a RECORD written on Windows separate paths with backslashes; pypa/installer
      // (records.parse_record_file) reads each as '/' before matching paths to the archive's names,
      // and PyPI accepts such wheels. Names are matched as installer matches them.
      char* path = out + (row[0].data() - out);
      std::replace(path, path + row[0].size(), '\\', '/');
      rec.rows.push_back({row[0], row[1], row[2], row_line});
    }
    row.clear();
    row_started = false;
  };
  bool told_break = false;
  // Printable ASCII but the comma and the quote means the same inside quotes and out, and is no
  // line break for anyone: a run of it joins the field at once.
  while (i < text.size()) {
    char c = text[i];
    if (is_csv_plain(static_cast<uint8_t>(c))) {
      const size_t j =
          i + 1 + csv_plain_run(reinterpret_cast<const uint8_t*>(text.data()) + i + 1, text.size() - i - 1);
      std::memcpy(out + w, text.data() + i, j - i);
      w += j - i;
      row_started = true;  // already so inside quotes
      i = j;
      continue;
    }
    // pip and installer read RECORD as csv over str.splitlines(): every other line break starts a
    // row there that this reader (csv over the file, \r and \n) never sees.
    if (c != '\r' && c != '\n' && !told_break && python_line_break_at(text, i)) {
      if (std::string at = python_line_break_name(text, i); !at.empty()) {
        told_break = true;
        rec.problems.push_back("line " + std::to_string(line) + ": " + at +
                               " is a line break for pip, which reads RECORD with str.splitlines(): it starts a row "
                               "there");
      }
    }
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          out[w++] = '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        out[w++] = c;
      }
      ++i;
      continue;
    }
    if (c == '"' && field_empty() && !quoted_field) {
      in_quotes = quoted_field = row_started = true;
    } else if (c == ',') {
      end_field();
      row_started = true;
    } else if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_row();
      ++line;
      row_line = line;
    } else {
      out[w++] = c;
      row_started = true;
    }
    ++i;
  }
  if (in_quotes)
    rec.problems.push_back("line " + std::to_string(row_line) + ": unexpected end of data inside a quoted field");
  if (row_started || !field_empty() || !row.empty()) end_row();
  return rec;
}

}  // namespace wc
