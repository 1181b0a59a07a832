#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wc {

std::vector<std::string_view> split(std::string_view s, char sep);
std::string_view trim(std::string_view s);
std::string to_lower(std::string_view s);
std::string to_upper(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
// Printable form of attacker-controlled text: control bytes and invalid UTF-8 become \xNN.
std::string escape_for_display(std::string_view s);
// escape_for_display, clipped to about `max` characters ("head…tail (N bytes)") so a 60 KiB name
// does not flood a report.
std::string clip_for_display(std::string_view s, size_t max = 160);
bool is_valid_utf8(std::string_view s);
// The last `count` non-blank lines of a program's output, trimmed and joined with " | ", clipped
// for display ("" when there are none): what a failed child said last.
std::string last_lines(std::string_view text, size_t count = 3, size_t max = 400);
// Sizes as people read them: "812 bytes", "64 kB", "16.8 MB", "1.23 GB" (decimal units).
std::string human_bytes(uint64_t b);
// Levenshtein distance (typo suggestions: "did you mean ...").
size_t edit_distance(std::string_view a, std::string_view b);
// `candidates` ordered nearest to `word` first (ties keep their order).
std::vector<std::string> nearest_first(const std::string& word, std::vector<std::string> candidates);
// Unicode Normalization Form C of valid UTF-8 (the text itself when it is ASCII or not valid UTF-8).
std::string nfc(std::string_view s);
// NFC with Unicode case folding (utf8proc's CASEFOLD): what a case-insensitive, normalising file
// system (APFS, NTFS) compares ("Ärger.py" and "ärger.py" are one name there).
std::string casefold_nfc(std::string_view s);
// Shell-style glob: `*` matches within a path component, `**` across components, `?` one char,
// `[...]` a class.
bool glob_match(std::string_view pattern, std::string_view path);
// The same glob asked of many paths (a policy's forbid list, of every entry): what glob_match
// works out from the pattern alone is worked out once. Holds a view of `pattern`.
class GlobMatcher {
 public:
  explicit GlobMatcher(std::string_view pattern);
  bool operator()(std::string_view path) const;

 private:
  std::string_view pattern_, literal_;
};
// Whether any of `globs` matches `name`.
bool glob_any(const std::vector<std::string>& globs, std::string_view name);
std::string base64_urlsafe_nopad(const unsigned char* data, size_t n);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// The first `shown` of `parts` joined by ", ", then " and N more" for the rest: "a, b and 3 more".
std::string join_shown(const std::vector<std::string>& parts, size_t shown);

}  // namespace wc
