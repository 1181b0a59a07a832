// Finding a few byte values in bulk, for the scans that pass over every byte of a wheel (its
// Python sources, its binaries, its RECORD): 16 bytes compared at a time where SSE2 is there (every x86-64
// machine; 32 with AVX2 for the fatbin magic, which every byte of every binary passes), one at a
// time elsewhere. memchr for one of the bytes stops at every byte that has
// that value, which in machine code and symbol tables is most of the time spent.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WC_BYTE_SCAN_AVX2 1
#endif

namespace wc {

// The first index of [0, n) whose byte is a, b or c; n when there is none.
inline size_t find_any_of3(const uint8_t* p, size_t n, uint8_t a, uint8_t b, uint8_t c) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i va = _mm_set1_epi8(static_cast<char>(a)), vb = _mm_set1_epi8(static_cast<char>(b)),
                vc = _mm_set1_epi8(static_cast<char>(c));
  for (; i + 16 <= n; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)), _mm_cmpeq_epi8(x, vc));
    if (const unsigned bits = static_cast<unsigned>(_mm_movemask_epi8(m)))
      return i + static_cast<size_t>(__builtin_ctz(bits));
  }
#endif
  for (; i < n; ++i)
    if (p[i] == a || p[i] == b || p[i] == c) return i;
  return n;
}

// Printable ASCII other than ',' and '"': what joins a CSV field whatever the reader's state.
inline bool is_csv_plain(uint8_t c) { return c >= 0x20 && c < 0x7F && c != ',' && c != '"'; }

// How many bytes from p on are is_csv_plain. A RECORD is mostly such runs (a path, then "sha256="
// and 43 base64 characters), and a 100,000-entry wheel's is 7 MB.
inline size_t csv_plain_run(const uint8_t* p, size_t n) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7F), comma = _mm_set1_epi8(','),
                quote = _mm_set1_epi8('"');
  for (; i + 16 <= n; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // Signed: bytes from 0x80 up are negative, so "less than 0x20" also catches them.
    const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(x, space), _mm_cmpeq_epi8(x, del)),
                                      _mm_or_si128(_mm_cmpeq_epi8(x, comma), _mm_cmpeq_epi8(x, quote)));
    if (const unsigned bits = static_cast<unsigned>(_mm_movemask_epi8(stop)))
      return i + static_cast<size_t>(__builtin_ctz(bits));
  }
#endif
  for (; i < n; ++i)
    if (!is_csv_plain(p[i])) return i;
  return n;
}

// Whether p[k..k+4) are the four bytes `w` (a candidate the bulk loops found by its first and last).
inline bool four_bytes_at(const uint8_t* p, size_t k, const uint8_t (&w)[4]) {
  return p[k] == w[0] && p[k + 1] == w[1] && p[k + 2] == w[2] && p[k + 3] == w[3];
}

#if defined(WC_BYTE_SCAN_AVX2)
// find_four_bytes' bulk loop 32 bytes at a time, on a CPU with AVX2 (chosen at run time; the build
// targets every x86-64). Returns the match, else n with *resume set to the first place not yet
// looked at (every place before it was; fewer than 35 bytes are left from there).
__attribute__((target("avx2"))) inline size_t find_four_bytes_avx2(const uint8_t* p, size_t n, const uint8_t (&w)[4],
                                                                   size_t* resume) {
  const __m256i first = _mm256_set1_epi8(static_cast<char>(w[0])), last = _mm256_set1_epi8(static_cast<char>(w[3]));
  size_t i = 0;
  for (; i + 35 <= n; i += 32) {  // the loads cover p[i, i+32) and p[i+3, i+35)
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 3));
    for (unsigned bits = static_cast<unsigned>(
             _mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(x, first), _mm256_cmpeq_epi8(y, last))));
         bits; bits &= bits - 1)
      if (size_t k = i + static_cast<size_t>(__builtin_ctz(bits)); four_bytes_at(p, k, w)) return k;
  }
  *resume = i;
  return n;
}

inline bool byte_scan_has_avx2() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has;
}
#endif

// The first index i with i + 4 <= n where p[i..i+4) are the four bytes `w`; n when there is none.
// A candidate must match the first and the last byte at once (in machine code about one place in
// 65,536) before the four are compared.
// `wide` false keeps to SSE2 (the tests hold both paths to one answer).
inline size_t find_four_bytes(const uint8_t* p, size_t n, const uint8_t (&w)[4], bool wide = true) {
  size_t i = 0;
  (void)wide;  // without AVX2 at build time, there is one path
#if defined(WC_BYTE_SCAN_AVX2)
  if (wide && n >= 35 && byte_scan_has_avx2())
    if (size_t k = find_four_bytes_avx2(p, n, w, &i); k < n) return k;
#endif
#if defined(__SSE2__)
  const __m128i first = _mm_set1_epi8(static_cast<char>(w[0])), last = _mm_set1_epi8(static_cast<char>(w[3]));
  for (; i + 19 <= n; i += 16) {  // the loads cover p[i, i+16) and p[i+3, i+19)
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 3));
    for (unsigned bits =
             static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(x, first), _mm_cmpeq_epi8(y, last))));
         bits; bits &= bits - 1)
      if (size_t k = i + static_cast<size_t>(__builtin_ctz(bits)); four_bytes_at(p, k, w)) return k;
  }
#endif
  for (; i + 4 <= n; ++i)
    if (four_bytes_at(p, i, w)) return i;
  return n;
}

}  // namespace wc

#undef WC_BYTE_SCAN_AVX2
