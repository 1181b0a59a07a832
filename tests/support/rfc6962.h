// The RFC 6962 section 2.1 reference, computed directly from its definitions: MTH (the Merkle tree
// hash) and PATH (the audit path) over given leaf hashes. Tests hold merkle_inclusion_ok and test
// logs to it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/digest.h"

namespace wc::testing {

inline std::string rfc6962_node(const std::string& l, const std::string& r) {
  return sha256_bytes(std::string(1, '\1') + l + r);
}
// The largest power of two below n.
inline uint64_t rfc6962_split(uint64_t n) {
  uint64_t k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
// MTH of leaves [lo, lo + n).
inline std::string mth(const std::vector<std::string>& leaves, uint64_t lo, uint64_t n) {
  if (n == 1) return leaves[lo];
  uint64_t k = rfc6962_split(n);
  return rfc6962_node(mth(leaves, lo, k), mth(leaves, lo + k, n - k));
}
// PATH(m) within leaves [lo, lo + n).
inline std::vector<std::string> audit_path(const std::vector<std::string>& leaves, uint64_t m, uint64_t lo,
                                           uint64_t n) {
  if (n == 1) return {};
  uint64_t k = rfc6962_split(n);
  std::vector<std::string> p;
  if (m < k) {
    p = audit_path(leaves, m, lo, k);
    p.push_back(mth(leaves, lo + k, n - k));
  } else {
    p = audit_path(leaves, m - k, lo + k, n - k);
    p.push_back(mth(leaves, lo, k));
  }
  return p;
}

}  // namespace wc::testing
