// Version strings a library carries in its bytes ("OpenSSL 3.0.7 1 Nov 2022", zlib's "deflate
// 1.3.1 Copyright ..."), found while the entry streams by, for the libraries whose SBOM version
// WC904 can then check against what the binary says. Only a few well-known libraries are scanned.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace wc {

class VersionScan {
 public:
  // The scan for a library entry called `name` (its file name, graft hash or not), or one that
  // scans nothing (active() false) when the library is not one of those known.
  explicit VersionScan(std::string_view name);
  bool active() const { return !prefixes_.empty(); }
  void feed(const uint8_t* p, size_t n);
  // The versions found, each once, in the order first seen (at most 8).
  std::vector<std::string> found() const { return found_; }

 private:
  void scan(std::string_view buf);
  std::vector<std::string_view> prefixes_;
  std::string tail_;  // the end of the previous block: a string cut by a block boundary is seen whole
  std::vector<std::string> found_;
  std::set<std::string> seen_;
};

}  // namespace wc
