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
// U+2029 (tests/installer_test.cc checks the set against Python).
size_t python_line_break_at(std::string_view s, size_t i);
// Whether a break can begin with byte `c` (a control character, or the lead byte C2 or E2): what a
// scanner asks of each byte before python_line_break_at (RECORD is megabytes in a large wheel).
inline bool may_begin_python_line_break(unsigned char c) { return c < 0x20 || c == 0xc2 || c == 0xe2; }
// The line break at `s[i]` named by its first code point ("U+000B", "U+2028"), "" when there is none.
std::string python_line_break_name(std::string_view s, size_t i);
// The first line break in `s` (its offset), or npos.
size_t find_python_line_break(std::string_view s);
// s.splitlines() without the line ends.
std::vector<std::string_view> python_splitlines(std::string_view s);

}  // namespace wc
