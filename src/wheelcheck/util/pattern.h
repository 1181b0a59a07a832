// User-supplied patterns (policy `version_file.regex`, schema `pattern`s) applied to text: RE2, a
// linear-time engine without backtracking or recursion, with the text bounded before matching.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace wc {

class Pattern {
 public:
  // Text longer than this is not searched (the caller says so); file contents named by a policy
  // are small (torch/version.py is a few hundred bytes).
  static constexpr size_t kMaxText = 1u << 20;

  // nullopt with *error set when RE2 rejects the pattern (or it is over 4 KiB).
  static std::optional<Pattern> compile(std::string_view pattern, bool multiline, std::string* error);
  // Searches anywhere in `text`; on a match returns true and sets *group1 (when the pattern has a
  // capture group). False for no match or text over kMaxText.
  bool search(std::string_view text, std::string* group1 = nullptr) const;

  Pattern(Pattern&&) noexcept;
  Pattern& operator=(Pattern&&) noexcept;
  ~Pattern();

 private:
  Pattern();
  std::unique_ptr<re2::RE2> re_;
};

}  // namespace wc
