#include "binary/version_strings.h"

#include <cstring>

namespace wc {
namespace {

constexpr size_t kTail = 96;  // longest prefix + longest version token kept across blocks
constexpr size_t kMaxToken = 40;

bool version_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '-';
}

}  // namespace

VersionScan::VersionScan(std::string_view name) {
  auto slash = name.rfind('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  std::string_view stem = name.substr(0, name.find_first_of(".-"));
  if (stem == "libcrypto" || stem == "libssl")
    prefixes_ = {"OpenSSL "};
  else if (stem == "libz")
    prefixes_ = {"deflate ", " inflate "};
  else if (stem == "libcurl")
    prefixes_ = {"libcurl/"};
  else if (stem.starts_with("libpng"))
    prefixes_ = {"libpng version "};
}

void VersionScan::feed(const uint8_t* p, size_t n) {
  if (!active() || found_.size() >= 8) return;
  std::string buf = tail_;
  buf.append(reinterpret_cast<const char*>(p), n);
  scan(buf);
  tail_ = buf.size() > kTail ? buf.substr(buf.size() - kTail) : buf;
}

void VersionScan::scan(std::string_view buf) {
  for (auto prefix : prefixes_) {
    for (size_t at = buf.find(prefix); at != std::string_view::npos; at = buf.find(prefix, at + 1)) {
      size_t v = at + prefix.size();
      if (v >= buf.size() || buf[v] < '0' || buf[v] > '9') continue;
      size_t end = v;
      while (end < buf.size() && end - v <= kMaxToken && version_char(buf[end])) ++end;
      // The token must end inside this buffer (the next block sees a cut one whole) and be short.
      if (end == buf.size() || end - v > kMaxToken) continue;
      std::string token(buf.substr(v, end - v));
      while (!token.empty() && (token.back() == '.' || token.back() == '-')) token.pop_back();
      if (token.empty() || !seen_.insert(token).second) continue;
      found_.push_back(token);
      if (found_.size() >= 8) return;
    }
  }
}

}  // namespace wc
