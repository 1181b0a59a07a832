#include "wheel/py_text.h"

#include <cstdio>

namespace wc {

std::string python_line_break_name(std::string_view s, size_t i) {
  const size_t n = python_line_break_at(s, i);
  if (!n) return "";
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  // One byte (or "\r\n", named by its \r), C2 85, or E2 80 A8/A9.
  const unsigned cp = n == 1 || b(0) == '\r' ? b(0) : n == 2 ? 0x85u : 0x2000u | (b(2) & 0x3fu);
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", cp);
  return buf;
}

size_t find_python_line_break(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i)
    if (python_line_break_at(s, i)) return i;
  return std::string_view::npos;
}

std::vector<std::string_view> python_splitlines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < s.size();) {
    size_t n = python_line_break_at(s, i);
    if (!n) {
      ++i;
      continue;
    }
    out.push_back(s.substr(start, i - start));
    i += n;
    start = i;
  }
  if (start < s.size()) out.push_back(s.substr(start));
  return out;
}

}  // namespace wc
