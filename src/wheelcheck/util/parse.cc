#include "util/parse.h"

#include <algorithm>
#include <charconv>

namespace wc {
namespace {

std::optional<uint64_t> from_chars_checked(std::string_view s, int base, uint64_t max, std::string* why) {
  auto fail = [&](std::string m) -> std::optional<uint64_t> {
    if (why) *why = std::move(m);
    return std::nullopt;
  };
  if (s.empty()) return fail("empty");
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec == std::errc::result_out_of_range) return fail("over the maximum of " + std::to_string(max));
  if (ec != std::errc() || end != s.data() + s.size()) return fail("not a number");
  if (v > max) return fail("over the maximum of " + std::to_string(max));
  return v;
}

}  // namespace

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

bool is_identifier(std::string_view s) {
  if (s.empty() || is_digit(s[0])) return false;
  for (char c : s)
    if (!is_alnum(c) && c != '_' && static_cast<unsigned char>(c) < 0x80) return false;
  return true;
}

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

bool all_digits(std::string_view s) { return !s.empty() && digit_prefix(s) == s.size(); }

bool is_hex_digit(char c) { return is_digit(c) || (ascii_lower(c) >= 'a' && ascii_lower(c) <= 'f'); }

bool all_hex(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_hex_digit); }

size_t digit_prefix(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && is_digit(s[n])) ++n;
  return n;
}

std::optional<uint64_t> parse_decimal(std::string_view s, uint64_t max, std::string* why) {
  // from_chars accepts no sign for unsigned types, but be explicit about what we accept.
  if (!s.empty() && !all_digits(s)) {
    if (why) *why = "not a number";
    return std::nullopt;
  }
  return from_chars_checked(s, 10, max, why);
}

std::optional<uint64_t> parse_hex(std::string_view s, uint64_t max, std::string* why) {
  consume(s, "0x", true);
  for (char c : s)
    if (!is_hex_digit(c)) {
      if (why) *why = "not a hexadecimal number";
      return std::nullopt;
    }
  return from_chars_checked(s, 16, max, why);
}

std::optional<uint64_t> parse_octal(std::string_view s, uint64_t max, std::string* why) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '7'; })) {
    if (why) *why = s.empty() ? "empty" : "not an octal number";
    return std::nullopt;
  }
  return from_chars_checked(s, 8, max, why);
}

std::optional<uint64_t> parse_integer(std::string_view s, uint64_t max, std::string* why) {
  if (s.size() > 2 && s[0] == '0' && ascii_lower(s[1]) == 'x') return parse_hex(s, max, why);
  return parse_decimal(s, max, why);
}

std::optional<double> parse_float(std::string_view s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int> parse_small(std::string_view s, int max) {
  auto v = parse_decimal(s, static_cast<uint64_t>(max));
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

bool consume(std::string_view& s, std::string_view prefix, bool ci) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (ci ? ascii_lower(s[i]) != ascii_lower(prefix[i]) : s[i] != prefix[i]) return false;
  s.remove_prefix(prefix.size());
  return true;
}

bool consume_number(std::string_view& s, uint64_t max, uint64_t& out) {
  size_t n = digit_prefix(s);
  if (n == 0) return false;
  auto v = parse_decimal(s.substr(0, n), max);
  if (!v) return false;
  out = *v;
  s.remove_prefix(n);
  return true;
}

bool ends_with_ci(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  std::string_view tail = s.substr(s.size() - suffix.size());
  return consume(tail, suffix, true);
}

std::string percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && is_hex_digit(s[i + 1]) && is_hex_digit(s[i + 2])) {
      out += static_cast<char>(*parse_hex(s.substr(i + 1, 2), 255));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace wc
