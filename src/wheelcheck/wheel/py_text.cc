#include "wheel/py_text.h"

#include <cstdio>

namespace wc {

size_t python_line_break_at(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  switch (b(i)) {
    case '\r': return b(i + 1) == '\n' ? 2 : 1;
    case '\n':
    case '\v':
    case '\f':
    case 0x1c:
    case 0x1d:
    case 0x1e: return 1;
    case 0xc2: return b(i + 1) == 0x85 ? 2 : 0;                                            // U+0085 NEXT LINE
    case 0xe2: return b(i + 1) == 0x80 && (b(i + 2) == 0xa8 || b(i + 2) == 0xa9) ? 3 : 0;  // U+2028, U+2029
    default: return 0;
  }
}

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
    if (may_begin_python_line_break(static_cast<unsigned char>(s[i])) && python_line_break_at(s, i)) return i;
  return std::string_view::npos;
}

std::vector<std::string_view> python_splitlines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < s.size();) {
    size_t n = may_begin_python_line_break(static_cast<unsigned char>(s[i])) ? python_line_break_at(s, i) : 0;
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
