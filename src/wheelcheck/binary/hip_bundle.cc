#include "binary/hip_bundle.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <set>

namespace wc {
namespace {

constexpr char kMagic[] = "__CLANG_OFFLOAD_BUNDLE__";  // 24 bytes, no NUL in the file
constexpr size_t kMagicLen = 24;
constexpr uint64_t kMaxEntries = 4096;

uint64_t le(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

// The entry IDs of an uncompressed bundle (its header only; the code objects may lie beyond `n`).
void parse_plain(const uint8_t* p, size_t n, HipFacts& out) {
  if (n < kMagicLen + 8 || std::memcmp(p, kMagic, kMagicLen) != 0) {
    out.error = "the section does not start with an offload bundle (__CLANG_OFFLOAD_BUNDLE__)";
    return;
  }
  uint64_t count = le(p + kMagicLen, 8);
  if (count == 0 || count > kMaxEntries) {
    out.error = "the offload bundle claims " + std::to_string(count) + " code objects";
    return;
  }
  size_t at = kMagicLen + 8;
  for (uint64_t i = 0; i < count; ++i) {
    if (n - at < 24) {
      out.error = "the offload bundle's entry table runs past the bytes read";
      return;
    }
    uint64_t id_len = le(p + at + 16, 8);
    at += 24;
    if (id_len > 1024 || n - at < id_len) {
      out.error = "offload bundle entry " + std::to_string(i) + " has an implausible ID length";
      return;
    }
    std::string id(reinterpret_cast<const char*>(p + at), static_cast<size_t>(id_len));
    at += static_cast<size_t>(id_len);
    // "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-": offload kind, triple, then the target ID after "--"
    // (the host entry has an empty target ID).
    if (id.rfind("hip", 0) != 0 && id.rfind("openmp", 0) != 0) continue;
    auto dd = id.find("--");
    std::string target = dd == std::string::npos ? "" : id.substr(dd + 2);
    if (!target.empty()) out.targets.push_back(target);
  }
}

}  // namespace

std::vector<std::string> HipFacts::processors() const {
  std::set<std::string> s;
  for (const auto& t : targets) s.insert(t.substr(0, t.find(':')));
  return {s.begin(), s.end()};
}

HipFacts parse_hip_bundle(const uint8_t* p, size_t n) {
  HipFacts out;
  if (n >= 4 && std::memcmp(p, "CCOB", 4) == 0) {
    // Version 1: magic, version, method, uncompressed size (32), hash (64); version 2 adds the
    // total size (32) before the uncompressed size; version 3 widens both to 64 bits.
    if (n < 8) return out.error = "truncated compressed bundle header", out;
    uint16_t version = static_cast<uint16_t>(le(p + 4, 2)), method = static_cast<uint16_t>(le(p + 6, 2));
    size_t header = version == 1 ? 8 + 4 + 8 : version == 2 ? 8 + 4 + 4 + 8 : version == 3 ? 8 + 8 + 8 + 8 : 0;
    if (!header) return out.error = "compressed bundle version " + std::to_string(version) + " is unknown", out;
    if (n < header) return out.error = "truncated compressed bundle header", out;
    uint64_t raw = version == 3 ? le(p + 16, 8) : version == 2 ? le(p + 12, 4) : le(p + 8, 4);
    std::vector<uint8_t> head(static_cast<size_t>(std::min<uint64_t>(raw, 64u << 10)));
    size_t got = 0;
    const uint8_t* in = p + header;
    size_t in_len = n - header;
    if (method == 0) {
      out.compression = "zlib";
      z_stream z{};
      if (inflateInit(&z) != Z_OK) return out.error = "zlib could not start", out;
      z.next_in = const_cast<Bytef*>(in);
      z.avail_in = static_cast<uInt>(in_len);
      z.next_out = head.data();
      z.avail_out = static_cast<uInt>(head.size());
      int rc = inflate(&z, Z_SYNC_FLUSH);
      got = head.size() - z.avail_out;
      inflateEnd(&z);
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) return out.error = "zlib data is corrupt", out;
    } else if (method == 1) {
      out.compression = "zstd";
      ZSTD_DStream* d = ZSTD_createDStream();
      ZSTD_inBuffer ib{in, in_len, 0};
      ZSTD_outBuffer ob{head.data(), head.size(), 0};
      size_t rc = 0;
      while (ob.pos < ob.size && ib.pos < ib.size) {
        rc = ZSTD_decompressStream(d, &ob, &ib);
        if (ZSTD_isError(rc) || rc == 0) break;
      }
      ZSTD_freeDStream(d);
      if (ZSTD_isError(rc)) return out.error = std::string("zstd data is corrupt: ") + ZSTD_getErrorName(rc), out;
      got = ob.pos;
    } else {
      return out.error = "compressed bundle method " + std::to_string(method) + " is neither zlib nor zstd", out;
    }
    parse_plain(head.data(), got, out);
    return out;
  }
  parse_plain(p, n, out);
  return out;
}

}  // namespace wc
