#include "util/strings.h"

#include <utf8proc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "util/parse.h"

namespace wc {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, p - start));
    start = p + 1;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string to_lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = ascii_lower(c);
  return r;
}

std::string to_upper(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = ascii_upper(c);
  return r;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

// Length of the UTF-8 sequence starting at s[i], or 0 when it is not well formed (RFC 3629:
// no overlongs, no surrogates, nothing above U+10FFFF).
static size_t utf8_seq_len(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
  if (n == 0 || c > 0xF4 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  if (c == 0xE0 && b(i + 1) < 0xA0) return 0;
  if (c == 0xED && b(i + 1) > 0x9F) return 0;
  if (c == 0xF0 && b(i + 1) < 0x90) return 0;
  if (c == 0xF4 && b(i + 1) > 0x8F) return 0;
  return n;
}

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_seq_len(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string escape_for_display(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = utf8_seq_len(s, i);
    if (n > 1) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    if (n == 1 && c >= 0x20 && c != 0x7F && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
    ++i;
  }
  return out;
}

std::string clip_for_display(std::string_view s, size_t max) {
  if (s.size() <= max) return escape_for_display(s);
  size_t head = max * 2 / 3, tail = max - head;
  // Cut on UTF-8 boundaries so the escaping does not see half a character.
  while (head > 0 && (static_cast<unsigned char>(s[head]) & 0xC0) == 0x80) --head;
  size_t from = s.size() - tail;
  while (from < s.size() && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80) ++from;
  return escape_for_display(s.substr(0, head)) + "\xe2\x80\xa6" + escape_for_display(s.substr(from)) + " (" +
         std::to_string(s.size()) + " bytes)";
}

std::string last_lines(std::string_view text, size_t count, size_t max) {
  auto lines = split(text, '\n');
  std::vector<std::string> keep;
  for (auto it = lines.rbegin(); it != lines.rend() && keep.size() < count; ++it)
    if (!trim(*it).empty()) keep.insert(keep.begin(), std::string(trim(*it)));
  return keep.empty() ? "" : clip_for_display(join(keep, " | "), max);
}

static bool match_class(std::string_view p, size_t& pi, char c) {
  // p[pi] == '['; on return pi is past ']'.
  size_t i = pi + 1;
  bool negate = i < p.size() && (p[i] == '!' || p[i] == '^');
  if (negate) ++i;
  bool found = false;
  bool first = true;
  for (; i < p.size() && (first || p[i] != ']'); ++i, first = false) {
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      if (c >= p[i] && c <= p[i + 2]) found = true;
      i += 2;
    } else if (p[i] == c) {
      found = true;
    }
  }
  pi = i < p.size() ? i + 1 : i;
  return found != negate;
}

namespace {

// A glob compiled to a sequence of tokens, matched by simulating all positions at once (a
// Thompson NFA): O(path x pattern) whatever the input, never backtracking ("**a**a...**b" against
// a long name took exponential time in the recursive matcher this replaces).
struct GlobToken {
  // fork matches nothing itself: it leads to the next token and to the one after "**/" ("**/"
  // also matches zero directories; compiled as fork, any, '/').
  enum Kind : uint8_t { literal, one, cls, star, any, fork } kind;
  char c = 0;         // literal
  size_t cls_at = 0;  // cls: the '[' in the pattern
};

std::vector<GlobToken> compile_glob(std::string_view p) {
  std::vector<GlobToken> t;
  for (size_t i = 0; i < p.size();) {
    if (p[i] == '*') {
      bool dbl = i + 1 < p.size() && p[i + 1] == '*';
      i += dbl ? 2 : 1;
      if (dbl && i < p.size() && p[i] == '/') t.push_back({GlobToken::fork});
      t.push_back({dbl ? GlobToken::any : GlobToken::star});
    } else if (p[i] == '?') {
      t.push_back({GlobToken::one});
      ++i;
    } else if (p[i] == '[') {
      GlobToken g{GlobToken::cls};
      g.cls_at = i;
      size_t j = i;
      match_class(p, j, '\0');  // only to find its end
      t.push_back(g);
      i = j;
    } else {
      GlobToken g{GlobToken::literal};
      g.c = p[i++];
      t.push_back(g);
    }
  }
  return t;
}

}  // namespace

static bool glob_nfa(std::string_view p, std::string_view s) {
  const std::vector<GlobToken> t = compile_glob(p);
  const size_t n = t.size();
  std::vector<char> cur(n + 1, 0), next(n + 1, 0);
  // Adds state i and what it reaches without consuming a character (in increasing order, so one
  // forward sweep closes the set).
  auto close = [&](std::vector<char>& set) {
    for (size_t i = 0; i < n; ++i) {
      if (!set[i]) continue;
      GlobToken::Kind k = t[i].kind;
      if (k == GlobToken::star || k == GlobToken::any || k == GlobToken::fork) set[i + 1] = 1;
      if (k == GlobToken::fork) set[i + 3] = 1;  // past "**/" (fork, any, slash)
    }
  };
  cur[0] = 1;
  close(cur);
  for (char c : s) {
    std::fill(next.begin(), next.end(), 0);
    bool alive = false;
    for (size_t i = 0; i < n; ++i) {
      if (!cur[i]) continue;
      const GlobToken& g = t[i];
      switch (g.kind) {
        case GlobToken::literal:
          if (g.c == c) next[i + 1] = alive = 1;
          break;
        case GlobToken::one:
          if (c != '/') next[i + 1] = alive = 1;
          break;
        case GlobToken::cls: {
          size_t at = g.cls_at;
          if (match_class(p, at, c)) next[i + 1] = alive = 1;
          break;
        }
        case GlobToken::star:
          if (c != '/') next[i] = alive = 1;
          break;
        case GlobToken::any: next[i] = alive = 1; break;
        case GlobToken::fork: break;
      }
    }
    if (!alive) return false;
    close(next);
    cur.swap(next);
  }
  return cur[n];
}

bool glob_any(const std::vector<std::string>& globs, std::string_view name) {
  return std::any_of(globs.begin(), globs.end(), [&](const std::string& g) { return glob_match(g, name); });
}

GlobMatcher::GlobMatcher(std::string_view pattern) : pattern_(pattern) {
  // Every run of plain characters (no wildcard, class or '/', which "**/" may drop) appears in
  // any path the pattern matches: look for the longest one first, so most paths fail in one
  // search instead of a backtracking walk.
  for (size_t i = 0; i < pattern.size();) {
    size_t j = i;
    while (j < pattern.size() && std::string_view("*?[]/").find(pattern[j]) == std::string_view::npos) ++j;
    if (j - i > literal_.size()) literal_ = pattern.substr(i, j - i);
    i = j + 1;
  }
}

bool GlobMatcher::operator()(std::string_view path) const {
  if (!literal_.empty() && path.find(literal_) == std::string_view::npos) return false;
  return glob_nfa(pattern_, path);
}

bool glob_match(std::string_view pattern, std::string_view path) { return GlobMatcher(pattern)(path); }

std::string base64_urlsafe_nopad(const unsigned char* data, size_t n) {
  static const char* tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  // Written in place (every entry's digest goes through here): 4 characters per 3 bytes, 2 or 3
  // for the last 1 or 2.
  std::string out(n / 3 * 4 + (n % 3 ? n % 3 + 1 : 0), '\0');
  char* o = out.data();
  size_t i = 0;
  for (; i + 2 < n; i += 3) {
    unsigned v = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    *o++ = tbl[(v >> 18) & 63];
    *o++ = tbl[(v >> 12) & 63];
    *o++ = tbl[(v >> 6) & 63];
    *o++ = tbl[v & 63];
  }
  if (n - i == 1) {
    unsigned v = data[i] << 16;
    *o++ = tbl[(v >> 18) & 63];
    *o++ = tbl[(v >> 12) & 63];
  } else if (n - i == 2) {
    unsigned v = (data[i] << 16) | (data[i + 1] << 8);
    *o++ = tbl[(v >> 18) & 63];
    *o++ = tbl[(v >> 12) & 63];
    *o++ = tbl[(v >> 6) & 63];
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string join_shown(const std::vector<std::string>& parts, size_t shown) {
  std::string out;
  for (size_t i = 0; i < parts.size() && i < shown; ++i) out += (i ? ", " : "") + parts[i];
  if (parts.size() > shown) out += " and " + std::to_string(parts.size() - shown) + " more";
  return out;
}

}  // namespace wc

namespace wc {
std::string nfc(std::string_view s) {
  if (is_ascii(s) || !is_valid_utf8(s)) return std::string(s);
  std::string z(s);  // utf8proc wants a NUL-terminated string
  utf8proc_uint8_t* out = utf8proc_NFC(reinterpret_cast<const utf8proc_uint8_t*>(z.c_str()));
  if (!out) return z;
  std::string r(reinterpret_cast<const char*>(out));
  std::free(out);
  return r;
}

std::string casefold_nfc(std::string_view s) {
  if (is_ascii(s)) return to_lower(std::string(s));
  if (!is_valid_utf8(s)) return std::string(s);
  utf8proc_uint8_t* out = nullptr;
  auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()), static_cast<utf8proc_ssize_t>(s.size()),
                        &out, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_CASEFOLD));
  if (n < 0 || !out) return std::string(s);
  std::string r(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
  std::free(out);
  return r;
}
}  // namespace wc

namespace wc {
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> nearest_first(const std::string& word, std::vector<std::string> candidates) {
  std::stable_sort(candidates.begin(), candidates.end(), [&](const std::string& x, const std::string& y) {
    return edit_distance(word, x) < edit_distance(word, y);
  });
  return candidates;
}
}  // namespace wc

namespace wc {
std::string human_bytes(uint64_t b) {
  char buf[32];
  if (b >= 1'000'000'000)
    std::snprintf(buf, sizeof buf, "%.2f GB", double(b) / 1e9);
  else if (b >= 1'000'000)
    std::snprintf(buf, sizeof buf, "%.1f MB", double(b) / 1e6);
  else if (b >= 10'000)
    std::snprintf(buf, sizeof buf, "%.0f kB", double(b) / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%llu byte%s", static_cast<unsigned long long>(b), b == 1 ? "" : "s");
  return buf;
}
}  // namespace wc
