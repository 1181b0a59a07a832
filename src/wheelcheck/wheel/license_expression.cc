#include "wheel/license_expression.h"

#include <vector>

#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

constexpr size_t kMaxDepth = 200;

// The byte length of the whitespace character at s[i] as Python's str.split() sees it (ASCII
// whitespace, the separators \x1c-\x1f and the Unicode spaces), 0 when it is none.
size_t whitespace_at(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (is_space(static_cast<char>(c)) || (c >= 0x1c && c <= 0x1f)) return 1;
  std::string_view rest = s.substr(i);
  for (std::string_view u : {"\xc2\x85", "\xc2\xa0", "\xe1\x9a\x80", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xaf",
                             "\xe2\x81\x9f", "\xe3\x80\x80"})
    if (rest.starts_with(u)) return u.size();
  if (rest.size() >= 3 && c == 0xe2 && static_cast<unsigned char>(rest[1]) == 0x80 &&
      static_cast<unsigned char>(rest[2]) >= 0x80 && static_cast<unsigned char>(rest[2]) <= 0x8a)
    return 3;  // U+2000 - U+200A
  return 0;
}

// Tokens as written: parentheses stand alone, the rest is split on whitespace.
std::vector<std::string_view> tokenize(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0, start = std::string_view::npos;
  auto flush = [&](size_t end) {
    if (start != std::string_view::npos) out.push_back(s.substr(start, end - start));
    start = std::string_view::npos;
  };
  while (i < s.size()) {
    if (size_t w = whitespace_at(s, i)) {
      flush(i);
      i += w;
    } else if (s[i] == '(' || s[i] == ')') {
      flush(i);
      out.push_back(s.substr(i, 1));
      ++i;
    } else {
      if (start == std::string_view::npos) start = i;
      ++i;
    }
  }
  flush(s.size());
  return out;
}

bool is_operator(std::string_view t) { return t == "and" || t == "or" || t == "with"; }

// name (AND|OR|WITH name)*, with balanced groups in place of names.
bool well_ordered(const std::vector<std::string>& tokens) {
  size_t depth = 0;
  bool want_operand = true;
  for (const auto& t : tokens) {
    if (t == "(") {
      if (!want_operand || depth >= kMaxDepth) return false;
      ++depth;
    } else if (t == ")") {
      if (want_operand || depth == 0) return false;
      --depth;
    } else if (is_operator(t)) {
      if (want_operand) return false;
      want_operand = true;
    } else {
      if (!want_operand) return false;
      want_operand = false;
    }
  }
  return !want_operand && depth == 0;
}

bool license_ref_id_ok(std::string_view id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) { return is_alnum(c) || c == '.' || c == '-'; });
}

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

CanonicalLicense canonicalize_license_expression(std::string_view raw, const SpdxIds& licenses,
                                                 const SpdxIds& exceptions) {
  const std::string invalid = "Invalid license expression: " + quoted(raw);
  auto written = tokenize(raw);
  if (written.empty()) return {std::nullopt, invalid};
  std::vector<std::string> tokens;
  std::map<std::string, std::string> refs;  // lower-case LicenseRef- -> its first spelling
  for (auto w : written) {
    tokens.push_back(to_lower(w));
    if (tokens.back().starts_with("licenseref-")) {
      if (!is_ascii(w)) return {std::nullopt, "Invalid licenseref (non-ASCII): " + quoted(w)};
      refs.emplace(tokens.back(), "LicenseRef-" + std::string(w.substr(11)));
    }
  }
  if (!well_ordered(tokens)) return {std::nullopt, invalid};
  std::vector<std::string> out;
  bool after_license = false;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (is_operator(t) || t == "(" || t == ")") {
      // WITH follows a license (not an exception or a group) and precedes a name.
      if (t == "with" && (!after_license || i + 1 == tokens.size() || is_operator(tokens[i + 1]) ||
                          tokens[i + 1] == "(" || tokens[i + 1] == ")"))
        return {std::nullopt, invalid};
      out.push_back(to_upper(t));
      after_license = false;
      continue;
    }
    if (!out.empty() && out.back() == "WITH") {
      auto e = exceptions.find(t);
      if (e == exceptions.end()) return {std::nullopt, "Unknown license exception: " + quoted(t)};
      out.push_back(e->second);
      after_license = false;
      continue;
    }
    std::string_view id = t;
    bool plus = id.ends_with('+');
    if (plus) id.remove_suffix(1);
    if (id.starts_with("licenseref-")) {
      if (plus || !license_ref_id_ok(id.substr(11))) return {std::nullopt, "Invalid licenseref: " + quoted(t)};
      out.push_back(refs.at(std::string(id)));
    } else {
      auto l = licenses.find(id);
      if (l == licenses.end()) return {std::nullopt, "Unknown license: " + quoted(id)};
      out.push_back(l->second + (plus ? "+" : ""));
    }
    after_license = true;
  }
  std::string joined;
  for (size_t i = 0; i < out.size(); ++i) {
    // "( " and " )" closed up, as packaging does after joining with spaces.
    if (i && out[i - 1] != "(" && out[i] != ")") joined += ' ';
    joined += out[i];
  }
  return {joined, ""};
}

}  // namespace wc
