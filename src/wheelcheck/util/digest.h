#pragma once

#include <openssl/evp.h>

#include <memory>
#include <string>
#include <string_view>

namespace wc {

// Incremental message digest through OpenSSL EVP ("sha256", "sha384", "sha512", ...).
// digest_b64() gives RECORD's form: urlsafe base64 without padding.
class Digest {
 public:
  explicit Digest(const std::string& algorithm = "sha256");  // throws std::invalid_argument if unknown
  // Starts over with the same algorithm on the same OpenSSL context (no allocation): what a reader
  // hashing many small entries does between them.
  void reset();
  void update(const void* data, size_t n);
  std::string digest_b64();
  std::string digest_hex();  // lower-case hex (index pages give sha256 that way)

 private:
  struct Free {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
  };
  std::unique_ptr<EVP_MD_CTX, Free> ctx_;
  unsigned char out_[EVP_MAX_MD_SIZE];
  unsigned int len_ = 0;
  bool done_ = false;
  void finish();
};

// Bytes as lower-case hex.
std::string hex_encode(std::string_view bytes);
// The raw 32-byte SHA-256 of `bytes` (Merkle trees, key ids, SCT signed data).
std::string sha256_bytes(std::string_view bytes);

// Standard base64 (with padding) through OpenSSL's EVP_EncodeBlock / EVP_DecodeBlock.
std::string base64_encode(std::string_view bytes);
// False when `text` is not base64 (length not a multiple of 4, a character outside the alphabet).
bool base64_decode(std::string_view text, std::string* out);

}  // namespace wc
