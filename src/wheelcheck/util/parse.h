// Numbers and fixed shapes in untrusted text (file names, METADATA, RECORD, HTTP headers, policy
// values). One range-checked number parser that returns an error instead of throwing, and small
// linear scanners for the prefix/digits/suffix shapes the formats use. Nothing here recurses or
// allocates per input character, and no backtracking regular-expression engine reads input
// (libstdc++'s recurses once per character and overflows the stack on long lines; the policy's
// own patterns go through RE2, util/pattern.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wc {

// Decimal digits only (no sign, no spaces, no "0x"), value <= max. On failure returns nullopt and
// sets *why ("empty", "not a number", "over the maximum of N").
std::optional<uint64_t> parse_decimal(std::string_view s, uint64_t max, std::string* why = nullptr);
// Hex digits, optional "0x"/"0X" prefix, value <= max.
std::optional<uint64_t> parse_hex(std::string_view s, uint64_t max, std::string* why = nullptr);
// Octal digits only, value <= max (tar header fields).
std::optional<uint64_t> parse_octal(std::string_view s, uint64_t max, std::string* why = nullptr);
// "0x..." as hex, anything else as decimal.
std::optional<uint64_t> parse_integer(std::string_view s, uint64_t max, std::string* why = nullptr);
// A whole decimal floating-point number (std::from_chars: no locale, no exceptions); nullopt otherwise.
std::optional<double> parse_float(std::string_view s);
// An int-sized decimal (for versions, API levels, SM numbers): parse_decimal with max INT_MAX.
std::optional<int> parse_small(std::string_view s, int max = 0x7fffffff);

// ASCII character classes (the C locale's, whatever locale is set): untrusted bytes are never
// classified by the locale's ctype.
// Inline: the analysis calls them per byte of every Python file it scans.
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_alnum(char c) { return is_digit(c) || is_alpha(c); }
bool is_space(char c);  // ' ', \t, \n, \v, \f, \r
char ascii_lower(char c);
char ascii_upper(char c);
// A Python identifier: ASCII letters, digits and '_', not starting with a digit; any byte >= 0x80
// passes (PEP 3131 names are not judged here). Non-empty.
bool is_identifier(std::string_view s);
bool all_digits(std::string_view s);  // non-empty and only 0-9
bool is_ascii(std::string_view s);    // every byte below 0x80 (true when empty)
bool is_hex_digit(char c);
bool all_hex(std::string_view s);  // non-empty and only 0-9, a-f, A-F (digests of any length)
// Number of leading decimal digits.
size_t digit_prefix(std::string_view s);
// Removes `prefix` from the front of `s` when it is there (ASCII case-insensitive when `ci`).
bool consume(std::string_view& s, std::string_view prefix, bool ci = false);
// Takes leading digits off `s` as a number <= max; false (s unchanged) when there are none or too big.
bool consume_number(std::string_view& s, uint64_t max, uint64_t& out);
bool ends_with_ci(std::string_view s, std::string_view suffix);
// A URL path with its %XX escapes decoded (a '%' not followed by two hex digits stays as it is).
std::string percent_decode(std::string_view s);

}  // namespace wc
