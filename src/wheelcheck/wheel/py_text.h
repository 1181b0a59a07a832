// Text as Python splits it. pip reads RECORD with str.splitlines() (csv.reader over its lines), and
// site.py (3.13+) splits .pth files the same way: every character splitlines() breaks on is a line
// end there, not only '\n'. Bytes are UTF-8; invalid sequences are no break.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace wc {

// The length of the line break str.splitlines() sees at `s[i]` (2 for "\r\n" and the two-byte
// U+0085, 3 for U+2028/U+2029), 0 when there is none: \n \r \v \f \x1c \x1d \x1e U+0085 U+2028
// U+2029 (tests/installer_test.cc checks the set against Python). Inline: scanners ask it of every
// byte (RECORD is megabytes in a large wheel).
inline size_t python_line_break_at(std::string_view s, size_t i) {
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
// The line break at `s[i]` named by its first code point ("U+000B", "U+2028"), "" when there is none.
std::string python_line_break_name(std::string_view s, size_t i);
// The first line break in `s` (its offset), or npos.
size_t find_python_line_break(std::string_view s);
// s.splitlines() without the line ends.
std::vector<std::string_view> python_splitlines(std::string_view s);

}  // namespace wc
