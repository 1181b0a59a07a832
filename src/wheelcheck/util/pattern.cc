#include "util/pattern.h"

#include <re2/re2.h>

namespace wc {

Pattern::Pattern() = default;
Pattern::Pattern(Pattern&&) noexcept = default;
Pattern& Pattern::operator=(Pattern&&) noexcept = default;
Pattern::~Pattern() = default;

std::optional<Pattern> Pattern::compile(std::string_view pattern, bool multiline, std::string* error) {
  if (pattern.size() > 4096) {
    if (error) *error = "pattern is over 4096 bytes";
    return std::nullopt;
  }
  RE2::Options opt;
  opt.set_log_errors(false);
  opt.set_max_mem(8 << 20);
  std::string p = multiline ? "(?m)" + std::string(pattern) : std::string(pattern);
  Pattern out;
  out.re_ = std::make_unique<re2::RE2>(p, opt);
  if (!out.re_->ok()) {
    if (error) *error = out.re_->error();
    return std::nullopt;
  }
  return out;
}

bool Pattern::search(std::string_view text, std::string* group1) const {
  if (!re_ || text.size() > kMaxText) return false;
  re2::StringPiece input(text.data(), text.size());
  re2::StringPiece groups[2];
  int n = std::min(2, re_->NumberOfCapturingGroups() + 1);
  if (!re_->Match(input, 0, input.size(), RE2::UNANCHORED, groups, n)) return false;
  if (group1) *group1 = n > 1 ? std::string(groups[1].data(), groups[1].size()) : "";
  return true;
}

}  // namespace wc
