#include "util/digest.h"

#include <map>
#include <mutex>
#include <stdexcept>

#include "util/strings.h"

namespace wc {
namespace {

// The algorithm's implementation, fetched once for the process. OpenSSL 3 looks it up again at
// every EVP_DigestInit_ex given the legacy EVP_MD that EVP_get_digestbyname returns (a lock and a
// table walk for every entry of a wheel); a fetched one is used as it is. The names accepted are
// EVP_get_digestbyname's, as before; unknown ones are not remembered (RECORD names them).
const EVP_MD* fetch_once(const std::string& algorithm) {
  auto fetch = [](const std::string& name) -> const EVP_MD* {
    const EVP_MD* legacy = EVP_get_digestbyname(name.c_str());
    if (!legacy) return nullptr;
    const EVP_MD* md = EVP_MD_fetch(nullptr, EVP_MD_get0_name(legacy), nullptr);
    return md ? md : legacy;
  };
  if (algorithm == "sha256") {
    static const EVP_MD* sha256 = fetch("sha256");
    return sha256;
  }
  static std::mutex mu;
  static std::map<std::string, const EVP_MD*, std::less<>> fetched;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = fetched.find(algorithm); it != fetched.end()) return it->second;
  const EVP_MD* md = fetch(algorithm);
  if (md) fetched.emplace(algorithm, md);
  return md;
}

}  // namespace

Digest::Digest(const std::string& algorithm) : ctx_(EVP_MD_CTX_new()) {
  const EVP_MD* md = fetch_once(algorithm);
  if (!md) throw std::invalid_argument("unknown digest algorithm '" + algorithm + "'");
  if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), md, nullptr) != 1)
    throw std::runtime_error("OpenSSL: cannot initialise " + algorithm);
}

void Digest::reset() {
  if (EVP_DigestInit_ex(ctx_.get(), EVP_MD_CTX_get0_md(ctx_.get()), nullptr) != 1)
    throw std::runtime_error("OpenSSL: cannot restart a digest");
  len_ = 0;
  done_ = false;
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
