// The one primitive for reading untrusted bytes (zip structures, ELF, Mach-O, PE, fatbin, RECORD).
// Every read checks bounds before it consumes; every offset and count taken from a file goes
// through checked_add / checked_mul. Values are memcpy'd, never read through casted pointers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace wc {

// Thrown by parsers for structurally invalid input; caught at the format boundary and turned into a
// finding. `offset` is relative to the start of the object being parsed.
class ParseError : public std::runtime_error {
 public:
  ParseError(std::string what, uint64_t offset) : std::runtime_error(std::move(what)), offset_(offset) {}
  uint64_t offset() const { return offset_; }

 private:
  uint64_t offset_;
};

inline uint64_t checked_add(uint64_t a, uint64_t b, uint64_t at = 0) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw ParseError("offset arithmetic overflows", at);
  return r;
}

inline uint64_t checked_mul(uint64_t a, uint64_t b, uint64_t at = 0) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw ParseError("size arithmetic overflows", at);
  return r;
}

enum class Endian { little, big };

class Cursor {
 public:
  Cursor() = default;
  explicit Cursor(std::span<const uint8_t> data, uint64_t base = 0, Endian e = Endian::little)
      : data_(data), base_(base), endian_(e) {}
  Cursor(const void* p, size_t n, uint64_t base = 0) : data_(static_cast<const uint8_t*>(p), n), base_(base) {}

  void set_endian(Endian e) { endian_ = e; }
  Endian endian() const { return endian_; }
  size_t size() const { return data_.size(); }
  size_t pos() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }
  // Absolute offset of the read position in the enclosing object (for error messages).
  uint64_t offset() const { return base_ + pos_; }

  void seek(uint64_t pos) {
    if (pos > data_.size()) fail("seek past end", pos);
    pos_ = static_cast<size_t>(pos);
  }
  void skip(uint64_t n) { seek(checked_add(pos_, n, offset())); }

  template <typename T>
  T read() {
    static_assert(std::is_integral_v<T>);
    need(sizeof(T));
    T v;
    // need() throws when fewer than sizeof(T) bytes are left; GCC 12 does not always see that
    // once a constant buffer is inlined and warns about the copy it can never reach.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    pos_ += sizeof(T);
    if (endian_ == Endian::big) v = byteswap(v);
    return v;
  }
  uint8_t u8() { return read<uint8_t>(); }
  uint16_t u16() { return read<uint16_t>(); }
  uint32_t u32() { return read<uint32_t>(); }
  uint64_t u64() { return read<uint64_t>(); }

  std::span<const uint8_t> bytes(uint64_t n) {
    need(n);
    auto s = data_.subspan(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }
  std::string_view str(uint64_t n) {
    auto b = bytes(n);
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }
  // A sub-cursor over [off, off+n) of this cursor's data, independent of the read position.
  Cursor sub(uint64_t off, uint64_t n) const {
    uint64_t end = checked_add(off, n, base_ + off);
    if (end > data_.size())
      fail_at("range [" + std::to_string(off) + ", +" + std::to_string(n) + ") past end of " +
                  std::to_string(data_.size()) + " bytes",
              base_ + off);
    Cursor c(data_.subspan(static_cast<size_t>(off), static_cast<size_t>(n)), base_ + off, endian_);
    return c;
  }
  // NUL-terminated string starting at `off` (must terminate inside the data).
  std::string_view cstr_at(uint64_t off) const {
    if (off >= data_.size()) fail_at("string offset out of range", base_ + off);
    const uint8_t* b = data_.data() + off;
    const void* z = std::memchr(b, 0, data_.size() - static_cast<size_t>(off));
    if (!z) fail_at("unterminated string", base_ + off);
    return {reinterpret_cast<const char*>(b), static_cast<size_t>(static_cast<const uint8_t*>(z) - b)};
  }
  std::span<const uint8_t> data() const { return data_; }

  [[noreturn]] void fail(const std::string& what, uint64_t at) const { fail_at(what, base_ + at); }
  [[noreturn]] static void fail_at(const std::string& what, uint64_t abs) { throw ParseError(what, abs); }

 private:
  void need(uint64_t n) const {
    if (n > data_.size() - pos_)
      fail_at("need " + std::to_string(n) + " bytes, " + std::to_string(data_.size() - pos_) + " left", base_ + pos_);
  }
  template <typename T>
  static T byteswap(T v) {
    if constexpr (sizeof(T) == 1)
      return v;
    else if constexpr (sizeof(T) == 2)
      return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
    else if constexpr (sizeof(T) == 4)
      return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
    else
      return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
  }

  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  uint64_t base_ = 0;
  Endian endian_ = Endian::little;
};

}  // namespace wc
