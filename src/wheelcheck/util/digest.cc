#include "util/digest.h"

#include <stdexcept>

#include "util/strings.h"

namespace wc {

Digest::Digest(const std::string& algorithm) : ctx_(EVP_MD_CTX_new()) {
  const EVP_MD* md = EVP_get_digestbyname(algorithm.c_str());
  if (!md) throw std::invalid_argument("unknown digest algorithm '" + algorithm + "'");
  if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), md, nullptr) != 1)
    throw std::runtime_error("OpenSSL: cannot initialise " + algorithm);
}

void Digest::update(const void* data, size_t n) { EVP_DigestUpdate(ctx_.get(), data, n); }

void Digest::finish() {
  if (done_) return;
  EVP_DigestFinal_ex(ctx_.get(), out_, &len_);
  done_ = true;
}

std::string Digest::digest_b64() {
  finish();
  return base64_urlsafe_nopad(out_, len_);
}

std::string Digest::digest_hex() {
  finish();
  return hex_encode(std::string_view(reinterpret_cast<const char*>(out_), len_));
}

std::string hex_encode(std::string_view bytes) {
  static const char* hex = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) s += hex[c >> 4], s += hex[c & 15];
  return s;
}

std::string sha256_bytes(std::string_view bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(bytes.data(), bytes.size(), out, &n, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(out), n);
}

std::string base64_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

bool base64_decode(std::string_view text, std::string* out) {
  if (text.size() % 4 != 0 || text.size() > (1u << 30)) return false;
  out->assign(3 * (text.size() / 4), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out->data()),
                          reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return false;
  size_t pad = text.empty() ? 0 : (text.back() == '=') + (text.size() > 1 && text[text.size() - 2] == '=');
  out->resize(static_cast<size_t>(n) - pad);
  return true;
}

}  // namespace wc
