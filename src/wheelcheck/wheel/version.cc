#include "wheel/version.h"

#include <algorithm>

#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

// A hand-written scanner for packaging's VERSION_PATTERN. Each optional separator in the pattern is
// `[-_.]?`; the scanner is greedy like the regex and every later component tolerates a missing
// separator, so greedy consumption never rejects a string the regex accepts.
class VersionScanner {
 public:
  explicit VersionScanner(std::string_view s) : s_(to_lower(s)) {}

  std::optional<Version> run() {
    Version v;
    trim_ws();
    if (peek() == 'v') ++i_;
    auto first = digits();
    if (!first) return std::nullopt;
    if (peek() == '!') {
      ++i_;
      v.epoch = *first;
      first = digits();
      if (!first) return std::nullopt;
    }
    v.release.push_back(*first);
    while (peek() == '.' && i_ + 1 < s_.size() && is_digit(s_[i_ + 1])) {
      ++i_;
      v.release.push_back(*digits());
    }
    if (!overflow_) pre(v);
    post(v);
    dev(v);
    if (peek() == '+' && !local(v)) return std::nullopt;
    trim_ws();
    if (i_ != s_.size() || overflow_) return std::nullopt;
    return v;
  }

 private:
  char peek(size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  static bool is_sep(char c) { return c == '-' || c == '_' || c == '.'; }
  void trim_ws() {
    while (i_ < s_.size() && is_space(s_[i_])) ++i_;
    if (i_ == s_.size()) return;
    size_t end = s_.size();
    while (end > i_ && is_space(s_[end - 1])) --end;
    s_.resize(end);
  }
  std::optional<uint64_t> digits() {
    size_t start = i_;
    uint64_t v = 0;
    while (i_ < s_.size() && is_digit(s_[i_])) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, uint64_t(s_[i_] - '0'), &v)) overflow_ = true;
      ++i_;
    }
    if (i_ == start) return std::nullopt;
    return v;
  }
  // Matches one of `words` at the cursor (longest first); returns its index.
  std::optional<size_t> word(std::initializer_list<std::string_view> words) {
    size_t best = SIZE_MAX, best_len = 0, k = 0;
    for (auto w : words) {
      if (s_.compare(i_, w.size(), w) == 0 && w.size() > best_len) best = k, best_len = w.size();
      ++k;
    }
    if (best == SIZE_MAX) return std::nullopt;
    i_ += best_len;
    return best;
  }
  // `[-_.]?(label)[-_.]?(N)?` — returns false (cursor restored) when the label is absent.
  bool labelled(std::initializer_list<std::string_view> labels, size_t& which, uint64_t& n) {
    size_t save = i_;
    if (is_sep(peek())) ++i_;
    auto w = word(labels);
    if (!w) {
      i_ = save;
      return false;
    }
    which = *w;
    // The regex's trailing `[-_.]?` is greedy and nothing after it needs that separator back
    // (a following "-N" would have been taken as this label's number), so consume it.
    if (is_sep(peek())) ++i_;
    n = 0;
    if (auto d = digits()) n = *d;
    return true;
  }
  void pre(Version& v) {
    size_t which;
    uint64_t n;
    if (!labelled({"alpha", "a", "beta", "b", "preview", "pre", "c", "rc"}, which, n)) return;
    static const char* norm[] = {"a", "a", "b", "b", "rc", "rc", "rc", "rc"};
    v.pre = std::make_pair(std::string(norm[which]), n);
  }
  void post(Version& v) {
    if (peek() == '-' && is_digit(peek(1))) {
      ++i_;
      v.post = *digits();
      return;
    }
    size_t which;
    uint64_t n;
    if (labelled({"post", "rev", "r"}, which, n)) v.post = n;
  }
  void dev(Version& v) {
    size_t which;
    uint64_t n;
    if (labelled({"dev"}, which, n)) v.dev = n;
  }
  bool local(Version& v) {
    ++i_;  // '+'
    for (;;) {
      size_t start = i_;
      while (i_ < s_.size() && is_alnum(s_[i_])) ++i_;
      if (i_ == start) return false;
      std::string seg = s_.substr(start, i_ - start);
      if (std::all_of(seg.begin(), seg.end(), is_digit)) {
        size_t nz = seg.find_first_not_of('0');
        seg = nz == std::string::npos ? "0" : seg.substr(nz);
      }
      v.local.push_back(seg);
      if (!is_sep(peek())) return true;
      ++i_;
    }
  }

  std::string s_;
  size_t i_ = 0;
  bool overflow_ = false;
};

bool is_numeric(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int cmp_num_str(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.compare(b) < 0 ? -1 : a.compare(b) > 0 ? 1 : 0;
}

template <typename T>
int cmp(const T& a, const T& b) {
  return a < b ? -1 : b < a ? 1 : 0;
}

}  // namespace

std::optional<Version> parse_version(std::string_view text) { return VersionScanner(text).run(); }

std::string Version::public_version() const {
  std::string s;
  if (epoch) s += std::to_string(epoch) + "!";
  for (size_t i = 0; i < release.size(); ++i) s += (i ? "." : "") + std::to_string(release[i]);
  if (pre) s += pre->first + std::to_string(pre->second);
  if (post) s += ".post" + std::to_string(*post);
  if (dev) s += ".dev" + std::to_string(*dev);
  return s;
}

std::string Version::normalized() const {
  std::string s = public_version();
  for (size_t i = 0; i < local.size(); ++i) s += (i ? "." : "+") + local[i];
  return s;
}

// PEP 440 ordering: dev-only releases sort before pre-releases, pre before final, post after.
int compare(const Version& a, const Version& b) {
  if (int c = cmp(a.epoch, b.epoch)) return c;
  size_t n = std::max(a.release.size(), b.release.size());
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = i < a.release.size() ? a.release[i] : 0;
    uint64_t y = i < b.release.size() ? b.release[i] : 0;
    if (int c = cmp(x, y)) return c;
  }
  auto pre_key = [](const Version& v) -> std::pair<int, std::pair<std::string, uint64_t>> {
    if (!v.pre && v.dev && !v.post) return {-1, {}};
    if (!v.pre) return {1, {}};
    return {0, *v.pre};
  };
  if (int c = cmp(pre_key(a), pre_key(b))) return c;
  auto post_key = [](const Version& v) -> std::pair<int, uint64_t> {
    return v.post ? std::make_pair(1, *v.post) : std::make_pair(0, uint64_t(0));
  };
  if (int c = cmp(post_key(a), post_key(b))) return c;
  auto dev_key = [](const Version& v) -> std::pair<int, uint64_t> {
    return v.dev ? std::make_pair(0, *v.dev) : std::make_pair(1, uint64_t(0));
  };
  if (int c = cmp(dev_key(a), dev_key(b))) return c;
  size_t m = std::max(a.local.size(), b.local.size());
  for (size_t i = 0; i < m; ++i) {
    if (i >= a.local.size()) return -1;
    if (i >= b.local.size()) return 1;
    const auto &x = a.local[i], &y = b.local[i];
    bool nx = is_numeric(x), ny = is_numeric(y);
    if (nx != ny) return nx ? 1 : -1;  // numeric segments sort after alphanumeric ones
    int c = nx ? cmp_num_str(x, y) : (x < y ? -1 : x > y ? 1 : 0);
    if (c) return c;
  }
  return 0;
}

std::optional<SpecifierSet> SpecifierSet::parse(std::string_view text, std::string* error) {
  SpecifierSet set;
  set.text_ = std::string(trim(text));
  if (set.text_.empty()) return set;
  for (auto part : split(text, ',')) {
    part = trim(part);
    Spec s;
    for (std::string_view op : {"===", "~=", "==", "!=", "<=", ">=", "<", ">"}) {
      if (part.substr(0, op.size()) == op) {
        s.op = op;
        break;
      }
    }
    if (s.op.empty()) {
      if (error) *error = "specifier '" + std::string(part) + "' has no operator";
      return std::nullopt;
    }
    s.raw = std::string(trim(part.substr(s.op.size())));
    std::string vtext = s.raw;
    if (s.op != "===") {
      if ((s.op == "==" || s.op == "!=") && vtext.size() > 2 && vtext.ends_with(".*")) {
        s.wildcard = true;
        vtext.resize(vtext.size() - 2);
      }
      s.version = parse_version(vtext);
      bool bad = !s.version || (s.op == "~=" && (s.version->release.size() < 2 || !s.version->local.empty())) ||
                 (s.wildcard && !s.version->local.empty());
      if (bad) {
        if (error) *error = "'" + std::string(part) + "' is not a valid PEP 440 specifier";
        return std::nullopt;
      }
    }
    set.specs_.push_back(std::move(s));
  }
  return set;
}

bool SpecifierSet::mentions_prerelease() const {
  return std::any_of(specs_.begin(), specs_.end(),
                     [](const Spec& s) { return s.version && (s.version->pre || s.version->dev); });
}

bool SpecifierSet::contains(const Version& v) const {
  return std::all_of(specs_.begin(), specs_.end(), [&](const Spec& s) { return matches(s, v); });
}

bool SpecifierSet::matches(const Spec& s, const Version& v) {
  if (s.op == "===") return iequals(s.raw, v.normalized());
  const Version& w = *s.version;
  Version pub = v;
  pub.local.clear();
  auto prefix_match = [&](const Version& spec) {
    if (v.epoch != spec.epoch) return false;
    for (size_t i = 0; i < spec.release.size(); ++i) {
      uint64_t x = i < v.release.size() ? v.release[i] : 0;
      if (x != spec.release[i]) return false;
    }
    if (spec.pre && (!v.pre || *v.pre != *spec.pre)) return false;
    if (spec.post && v.post != spec.post) return false;
    return !spec.dev || v.dev == spec.dev;
  };
  if (s.op == "==") return s.wildcard ? prefix_match(w) : compare(w.local.empty() ? pub : v, w) == 0;
  if (s.op == "!=") return s.wildcard ? !prefix_match(w) : compare(w.local.empty() ? pub : v, w) != 0;
  if (s.op == "~=") {
    Version prefix;
    prefix.epoch = w.epoch;
    prefix.release.assign(w.release.begin(), w.release.end() - 1);
    return compare(pub, w) >= 0 && prefix_match(prefix);
  }
  int c = compare(pub, w);
  if (s.op == "<=") return c <= 0;
  if (s.op == ">=") return c >= 0;
  if (s.op == "<") return c < 0;
  return c > 0;
}

}  // namespace wc
