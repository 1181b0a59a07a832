// PEP 440 versions and specifiers, accepting what packaging.version.Version accepts (the
// "permissive" grammar of the spec's Appendix B) and printing the normalised form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace wc {

struct Version {
  uint64_t epoch = 0;
  std::vector<uint64_t> release;
  std::optional<std::pair<std::string, uint64_t>> pre;  // "a" | "b" | "rc"
  std::optional<uint64_t> post;
  std::optional<uint64_t> dev;
  std::vector<std::string> local;  // lower-cased segments, numeric ones without leading zeros

  std::string normalized() const;
  std::string public_version() const;  // normalized() without the local part
};

// nullopt when `text` is not a PEP 440 version.
std::optional<Version> parse_version(std::string_view text);
// <0, 0, >0 in PEP 440 order (local segments compared too).
int compare(const Version& a, const Version& b);

// A specifier set such as ">=3.9,!=3.10.*,<4". Parse errors give nullopt.
class SpecifierSet {
 public:
  static std::optional<SpecifierSet> parse(std::string_view text, std::string* error = nullptr);
  bool contains(const Version& v) const;
  // A clause names a pre- or dev-release: PEP 440 then lets pre-releases match (as pip does).
  bool mentions_prerelease() const;
  const std::string& text() const { return text_; }

 private:
  struct Spec {
    std::string op;
    std::string raw;  // version text as written (for === and .*)
    std::optional<Version> version;
    bool wildcard = false;
  };
  static bool matches(const Spec& s, const Version& v);
  std::vector<Spec> specs_;
  std::string text_;
};

}  // namespace wc
