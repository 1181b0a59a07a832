// The concepts the readers rest on, one by one: the checked cursor, the number and text scanners,
// the sparse capture a streamed binary is parsed through, JSON from outside, and the RFC 822 /
// CSV readers behind METADATA, WHEEL and RECORD.
#include <gtest/gtest.h>

#include <optional>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "binary/sparse_file.h"
#include "support/test_support.h"
#include "util/byte_scan.h"
#include "util/cursor.h"
#include "util/digest.h"
#include "util/hash.h"
#include "util/json_text.h"
#include "util/order.h"
#include "util/parse.h"
#include "util/scratch_file.h"
#include "util/strings.h"
#include "util/u32_map.h"
#include "util/view_map.h"
#include "wheel/entry_names.h"
#include "wheel/metadata.h"

namespace wc {
namespace {

TEST(Cursor, ChecksEveryReadAndOffset) {
  const std::vector<uint8_t> bytes = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 'a', 'b', 0, 'c'};
  const uint8_t* data = bytes.data();
  Cursor c(data, bytes.size(), 100);
  EXPECT_EQ(c.u32(), 1u);
  EXPECT_EQ(c.u32(), 0xffffffffu);
  EXPECT_EQ(c.offset(), 108u);
  EXPECT_EQ(c.cstr_at(8), "ab");
  EXPECT_THROW(c.cstr_at(11), ParseError);  // "c" never terminates
  EXPECT_THROW(c.cstr_at(12), ParseError);
  EXPECT_THROW(c.u64(), ParseError);  // 4 bytes left
  EXPECT_EQ(c.pos(), 8u);             // a failed read consumes nothing
  try {
    c.u64();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.offset(), 108u);
    EXPECT_NE(std::string(e.what()).find("need 8 bytes, 4 left"), std::string::npos) << e.what();
  }
  EXPECT_THROW(c.sub(8, 5), ParseError);
  EXPECT_THROW(c.sub(UINT64_MAX - 1, 4), ParseError);  // offset + size overflows
  EXPECT_THROW(c.skip(UINT64_MAX), ParseError);
  Cursor be(data, bytes.size());
  be.set_endian(Endian::big);
  EXPECT_EQ(be.u32(), 0x01000000u);
  EXPECT_THROW(checked_mul(UINT64_MAX / 2, 3), ParseError);
  EXPECT_EQ(checked_add(1, 2), 3u);
}

TEST(Numbers, RangeCheckedAndNeverThrowing) {
  std::string why;
  EXPECT_EQ(parse_decimal("0", 10), 0u);
  EXPECT_EQ(parse_decimal("18446744073709551615", UINT64_MAX), UINT64_MAX);
  EXPECT_FALSE(parse_decimal("18446744073709551616", UINT64_MAX, &why));
  EXPECT_NE(why.find("over the maximum"), std::string::npos);
  EXPECT_FALSE(parse_decimal("11", 10, &why));
  EXPECT_EQ(why, "over the maximum of 10");
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1e3", "0x10", "١"})
    EXPECT_FALSE(parse_decimal(bad, 1000)) << bad;
  EXPECT_EQ(parse_hex("0xFFffFFff", UINT32_MAX), 0xffffffffu);
  EXPECT_EQ(parse_hex("6627e8d5", UINT32_MAX), 0x6627e8d5u);
  EXPECT_FALSE(parse_hex("1ffffffff", UINT32_MAX));
  EXPECT_FALSE(parse_hex("0x", UINT32_MAX));
  EXPECT_FALSE(parse_hex("g", UINT32_MAX));
  EXPECT_EQ(parse_integer("0x10", 100), 16u);
  EXPECT_EQ(parse_integer("010", 100), 10u);
  EXPECT_EQ(parse_small("2147483647"), 2147483647);
  EXPECT_FALSE(parse_small("2147483648"));
}

TEST(Scanners, PrefixDigitsSuffix) {
  std::string_view s = "cp312t";
  EXPECT_TRUE(consume(s, "CP", /*ci=*/true));
  uint64_t n = 0;
  EXPECT_TRUE(consume_number(s, 9999, n));
  EXPECT_EQ(n, 312u);
  EXPECT_EQ(s, "t");
  std::string_view big = "99999999999999999999x";
  EXPECT_FALSE(consume_number(big, UINT64_MAX, n));
  EXPECT_EQ(big.size(), 21u);  // unchanged on failure
  EXPECT_TRUE(ends_with_ci("X.PYD", ".pyd"));
  EXPECT_EQ(digit_prefix("123abc"), 3u);
  EXPECT_FALSE(all_digits(""));
}

// is_python_keyword against the interpreter's own list: every keyword, and every one of them one
// letter longer, shorter or in other case, which are names.
TEST(Scanners, PythonKeywordsAsKeywordKwlistSaysThem) {
  auto py = testing::run_command("python3 -c \"import keyword; print(' '.join(keyword.kwlist))\"");
  if (py.exit_code == 127) GTEST_SKIP() << "no python3: " << py.err;
  ASSERT_EQ(py.exit_code, 0) << py.err;
  std::istringstream in(py.out);
  std::set<std::string> kw;
  for (std::string w; in >> w;) kw.insert(w);
  ASSERT_GE(kw.size(), 35u);
  for (const auto& k : kw) {
    EXPECT_TRUE(is_python_keyword(k)) << k;
    for (const std::string& near : {k + "s", k.substr(1), k.substr(0, k.size() - 1), to_upper(k), "_" + k})
      EXPECT_EQ(is_python_keyword(near), kw.count(near) == 1) << near;
  }
}

TEST(Scanners, EntryNames) {
  EXPECT_TRUE(is_native_library_name("a/libfoo.so.1.2.3"));
  EXPECT_TRUE(is_native_library_name("x.DLL"));
  EXPECT_FALSE(is_native_library_name("a/so.py"));
  EXPECT_FALSE(is_native_library_name("libfoo.so.1a"));
  // Each suffix in both cases (the last byte is checked first, lower-cased).
  for (const char* yes : {"m.pyd", "M.PYD", "x.dll", "x.Dll", "l.dylib", "L.DYLIB", "libz.so", "libz.SO", "libz.so.1",
                          "p/libz.so.1.2.30", "libz.So.9"})
    EXPECT_TRUE(is_native_library_name(yes)) << yes;
  for (const char* no : {"", "m.py", "so", "x.so/m.py", "a.dll/b", "libz.so.1.x", "libz.sob", "libz.o", "README.md",
                         "libz.so.1.2.3b", "x.pyl", "lib", "d"})
    EXPECT_FALSE(is_native_library_name(no)) << no;
  EXPECT_EQ(extension_suffix("p/m.cpython-312-x86_64-linux-gnu.so")->abi, "cp312");
  EXPECT_EQ(extension_suffix("p/m.cpython-313t-darwin.so")->abi, "cp313t");
  EXPECT_EQ(extension_suffix("p/m.cpython-37m-x86_64-linux-gnu.so")->abi, "cp37");
  EXPECT_EQ(extension_suffix("p/m.cp312-win_amd64.pyd")->abi, "cp312");
  EXPECT_EQ(extension_suffix("p/m.abi3.so")->abi, "abi3");
  EXPECT_EQ(extension_suffix("p/m.so")->abi, "");
  EXPECT_FALSE(extension_suffix("p/m.py"));
  std::string huge = "m.cpython-" + std::string(100000, '3') + "-x.so";  // linear, no recursion
  EXPECT_EQ(extension_suffix(huge)->abi.size(), 100002u);
}

TEST(Scanners, ClipForDisplay) {
  EXPECT_EQ(clip_for_display("short"), "short");
  std::string clipped = clip_for_display(std::string(10000, 'a'), 30);
  EXPECT_LT(clipped.size(), 60u);
  EXPECT_NE(clipped.find("(10000 bytes)"), std::string::npos);
  EXPECT_EQ(clip_for_display("a\x1b"
                             "b"),
            "a\\x1bb");
}

TEST(Scanners, LastLines) {
  EXPECT_EQ(last_lines(""), "");
  EXPECT_EQ(last_lines("\n  \n"), "");
  EXPECT_EQ(last_lines("a\nb\n\n  c  \nd\n"), "b | c | d");
  EXPECT_EQ(last_lines("one\ntwo", 1), "two");
  EXPECT_NE(last_lines(std::string(5000, 'x'), 3, 50).find("(5000 bytes)"), std::string::npos);
}

// %XX decoding as Python's urllib.parse.unquote_to_bytes does it (pip writes file:// URLs so).
TEST(Parse, PercentDecodeAsPythonUnquotes) {
  std::vector<std::string> cases = {"/a%20b/c.whl", "%",    "%2",    "%zz%41", "100%",
                                    "%E2%82%AC",    "%%41", "a%2Fb", "%4a%4A"};
  std::string py = "import sys, urllib.parse\nfor a in sys.argv[1:]: print(urllib.parse.unquote_to_bytes(a).hex())";
  std::string cmd = "python3 -c " + testing::shell_quote(py);
  for (const auto& c : cases) cmd += " " + testing::shell_quote(c);
  auto r = testing::run_command(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = split(r.out, '\n');
  ASSERT_GE(lines.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    std::string hex;
    for (unsigned char ch : percent_decode(cases[i]))
      hex += "0123456789abcdef"[ch >> 4], hex += "0123456789abcdef"[ch & 15];
    EXPECT_EQ(hex, std::string(lines[i])) << cases[i];
  }
}

// The bulk scans against a byte-by-byte reference: every length up to a few blocks (32 bytes with
// AVX2, then 16, then single bytes), every place a match (or a near one: first and last bytes only)
// can sit, bytes of both signs, the match cut by the end of the buffer.
TEST(ByteScan, FindsWhatAByteLoopFinds) {
  auto any_of3 = [](const std::vector<uint8_t>& v, size_t n, uint8_t a, uint8_t b, uint8_t c) {
    for (size_t i = 0; i < n; ++i)
      if (v[i] == a || v[i] == b || v[i] == c) return i;
    return n;
  };
  const uint8_t magic[4] = {0x50, 0xED, 0x55, 0xBA};
  auto four = [&](const std::vector<uint8_t>& v, size_t n) {
    for (size_t i = 0; i + 4 <= n; ++i)
      if (std::equal(magic, magic + 4, v.begin() + static_cast<long>(i))) return i;
    return n;
  };
  uint32_t seed = 7;
  auto next = [&] { return static_cast<uint8_t>((seed = seed * 1664525u + 1013904223u) >> 24); };
  size_t found3 = 0, found4 = 0;
  for (size_t n = 0; n <= 140; ++n)
    for (size_t at = 0; at <= n; ++at)
      for (int kind = 0; kind < 3; ++kind) {
        std::vector<uint8_t> v(n + 8);        // bytes past n are there to read, never to find
        for (auto& b : v) b = next() | 0x80;  // never a quote, a slash or the magic's first byte by chance
        for (size_t k = n; k < v.size(); ++k) v[k] = 0x22;
        if (at < n) v[at] = kind == 0 ? 0x22 : kind == 1 ? 0x27 : 0x2F;
        if (kind == 2 || kind == 1) {  // a magic at `at`, cut short by n when it does not fit
          for (size_t k = 0; k < 4 && at + k < v.size(); ++k) v[at + k] = magic[k];
          if (kind == 1 && at + 2 < v.size()) v[at + 2] = 0x56;  // first and last bytes only
        }
        const size_t want3 = any_of3(v, n, 0x22, 0x27, 0x2F), want4 = four(v, n);
        EXPECT_EQ(find_any_of3(v.data(), n, 0x22, 0x27, 0x2F), want3) << "n " << n << " at " << at << " kind " << kind;
        EXPECT_EQ(find_four_bytes(v.data(), n, magic), want4) << "n " << n << " at " << at << " kind " << kind;
        EXPECT_EQ(find_four_bytes(v.data(), n, magic, false), want4)  // SSE2 alone, as without AVX2
            << "n " << n << " at " << at << " kind " << kind;
        found3 += want3 < n, found4 += want4 < n;
      }
  EXPECT_GT(found3, 2000u);  // the cases above do find what they plant
  EXPECT_GT(found4, 1000u);
}

// One step of a flat map against std::unordered_map: an insertion (both must agree whether the key
// was new, and on its value) or a lookup (found in both or in neither, with one value).
template <typename Flat, typename Ref, typename Key, typename V>
void same_step(Flat& flat, Ref& ref, const Key& key, const V& v, bool insert) {
  if (insert) {
    auto [at, fresh] = flat.try_emplace(key, v);
    auto [it, ref_fresh] = ref.emplace(key, v);
    ASSERT_EQ(fresh, ref_fresh) << key;
    ASSERT_EQ(*at, it->second) << key;
    return;
  }
  const auto* at = std::as_const(flat).find(key);
  auto it = ref.find(key);
  ASSERT_EQ(at != nullptr, it != ref.end()) << key;
  if (at) {
    ASSERT_EQ(*at, it->second) << key;
  }
}

// The flat map answers as std::unordered_map does over a random run of insertions and lookups
// (keys 0 and 2^32-1 included, through several growths), and a value stays what was put there.
TEST(U32Map, AnswersAsAnUnorderedMap) {
  U32Map<uint64_t> flat;
  std::unordered_map<uint32_t, uint64_t> ref;
  uint64_t seed = 11;
  auto next = [&] { return seed = seed * 6364136223846793005ull + 1442695040888963407ull; };
  for (uint32_t key : {0u, UINT32_MAX, 16u, 32u}) {  // the ends of the key range
    EXPECT_TRUE(flat.try_emplace(key, key + 1ull).second);
    ref.emplace(key, key + 1ull);
  }
  for (int op = 0; op < 200000; ++op) {
    const uint64_t r = next();
    const uint32_t key = static_cast<uint32_t>(r >> 40) % 50000u * 977u;  // collisions and repeats
    ASSERT_NO_FATAL_FAILURE(same_step(flat, ref, key, r, r & 1));
  }
  EXPECT_EQ(flat.size(), ref.size());
  EXPECT_GT(ref.size(), 30000u);
  for (const auto& [k, v] : ref) {
    const uint64_t* at = flat.find(k);
    ASSERT_NE(at, nullptr) << k;
    EXPECT_EQ(*at, v) << k;
  }
  U32Map<char> set;
  EXPECT_TRUE(set.insert(7));
  EXPECT_FALSE(set.insert(7));
  EXPECT_EQ(set.find(8), nullptr);
}

// The largest-first order is the order std::stable_sort by descending key gives, through both of
// its ways (short inputs, and the radix passes from 4,096 keys): keys that tie in the thousands
// (a wheel's many equal small sizes), keys that differ only in one 16-bit digit or only in the top
// one, the ends of the range (0 and UINT64_MAX), all equal, empty.
TEST(Order, LargestFirstAsAStableSortByDescendingKey) {
  uint64_t seed = 5;
  auto next = [&] { return seed = seed * 6364136223846793005ull + 1442695040888963407ull; };
  auto expect_stable_descending = [](const std::vector<uint64_t>& keys, const char* what) {
    std::vector<size_t> want(keys.size());
    for (size_t i = 0; i < want.size(); ++i) want[i] = i;
    std::stable_sort(want.begin(), want.end(), [&](size_t a, size_t b) { return keys[a] > keys[b]; });
    EXPECT_EQ(order_largest_first(keys), want) << what << ", " << keys.size() << " keys";
  };
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{100}, size_t{4095}, size_t{4096}, size_t{50000}}) {
    std::vector<uint64_t> k(n);
    for (auto& x : k) x = next() % 300;  // many ties
    expect_stable_descending(k, "small sizes");
    for (auto& x : k) x = next();
    expect_stable_descending(k, "any 64 bits");
    for (auto& x : k) x = (next() % 3) << 48 | 77;  // only the top digit differs
    expect_stable_descending(k, "top digit");
    for (auto& x : k) x = (next() % 4) << 16 | (next() % 2);  // the second and the first digit
    expect_stable_descending(k, "two low digits");
    for (auto& x : k) x = (next() & 1) ? UINT64_MAX : 0;
    expect_stable_descending(k, "the ends of the range");
    for (auto& x : k) x = 12345;
    expect_stable_descending(k, "all equal");
  }
}

// The view-keyed map answers as std::unordered_map does: names that share long prefixes or differ
// in one byte, the empty name, a NUL inside a name, through several growths; every key is visited
// once by for_each with its value. The same with the probe bound at 0 and 2: the map moves into
// its ordered fallback part-way (as names crafted to share one hash would make it) and answers
// the same before, during and after. for_each goes in insertion order while the map is hashed, in
// key order once it is ordered. A moved-from map is empty and usable.
TEST(ViewMap, AnswersAsAnUnorderedMap) {
  std::deque<std::string> names;  // what the views point into: never moves
  names.emplace_back("");
  names.emplace_back(std::string("a\0b", 3));
  names.emplace_back(std::string("a\0c", 3));
  for (int i = 0; i < 40000; ++i) {
    names.push_back("pkg/sub/module_" + std::to_string(i % 20000) + (i % 3 ? ".py" : ".pyc"));
    names.push_back(std::string(i % 97, 'x') + static_cast<char>('a' + i % 26));
  }
  for (size_t max_probe : {ViewMap<size_t>::kMaxProbe, size_t{0}, size_t{2}}) {
    SCOPED_TRACE("probe bound " + std::to_string(max_probe));
    ViewMap<size_t> flat(0, max_probe);
    std::unordered_map<std::string_view, size_t> ref;
    std::vector<std::string_view> inserted;  // the keys in the order they went in
    uint64_t seed = 5;
    for (size_t op = 0; op < names.size() * 2; ++op) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      const std::string_view key = names[(seed >> 33) % names.size()];
      if ((seed & 1) && !ref.count(key)) inserted.push_back(key);
      ASSERT_NO_FATAL_FAILURE(same_step(flat, ref, key, op, seed & 1));
    }
    EXPECT_EQ(flat.ordered(), max_probe != ViewMap<size_t>::kMaxProbe);
    EXPECT_EQ(flat.size(), ref.size());
    EXPECT_GT(ref.size(), 20000u);
    size_t visited = 0;
    std::string_view last;
    flat.for_each([&](std::string_view k, size_t v) {
      auto it = ref.find(k);
      ASSERT_NE(it, ref.end()) << k;
      EXPECT_EQ(it->second, v) << k;
      if (flat.ordered())  // key order
        EXPECT_TRUE(visited == 0 || last < k) << k;
      else  // insertion order
        EXPECT_EQ(k, inserted.at(visited));
      last = k;
      ++visited;
    });
    EXPECT_EQ(visited, ref.size());
    ViewMap<size_t> moved(std::move(flat));
    EXPECT_EQ(moved.size(), ref.size());
    EXPECT_TRUE(flat.empty());  // NOLINT(bugprone-use-after-move): what a moved-from map holds
    EXPECT_EQ(flat.find("pkg/sub/module_1.py"), nullptr);
    EXPECT_TRUE(flat.try_emplace("x", 1).second);
    EXPECT_EQ(flat.size(), 1u);
  }
  ViewMap<int> lazy;  // nothing allocated, nothing found, then one insertion
  EXPECT_EQ(lazy.find("x"), nullptr);
  EXPECT_TRUE(lazy.try_emplace("x", 3).second);
  ASSERT_NE(lazy.find("x"), nullptr);
  EXPECT_EQ(*lazy.find("x"), 3);
  EXPECT_EQ(lazy.find(""), nullptr);
}

// The hashed calls (a hash taken ahead by HashesAhead, and one map's hash used in another) answer
// as the plain ones: two maps given the same keys in the same order (each key three or four times,
// some finds between the insertions), one each way, through growths and the ordered fallback.
// HashesAhead gives each key's own hash at its turn, for loops shorter than its look-ahead too,
// and hands every key's hash ahead exactly once, in order.
TEST(ViewMap, HashedCallsTakenAheadAnswerAsThePlainOnes) {
  std::deque<std::string> names;
  for (int i = 0; i < 30000; ++i) names.push_back("pkg/m" + std::to_string(i % 9000) + (i % 2 ? ".py" : ""));
  for (size_t max_probe : {ViewMap<size_t>::kMaxProbe, size_t{1}}) {
    SCOPED_TRACE("probe bound " + std::to_string(max_probe));
    ViewMap<size_t> plain(0, max_probe), hashed(0, max_probe), other(100);
    std::vector<uint64_t> handed;
    HashesAhead ahead(
        names.size(), [&](size_t i) { return other.hash(names[i]); },
        [&](uint64_t h) {
          handed.push_back(h);
          hashed.prefetch(h);
        });
    for (size_t i = 0; i < names.size(); ++i) {
      const uint64_t h = ahead.at(i);
      ASSERT_EQ(h, plain.hash(names[i])) << i;
      if (i % 3 == 2) {
        const size_t* a = plain.find(names[i]);
        const size_t* b = hashed.find_hashed(names[i], h);
        ASSERT_EQ(a == nullptr, b == nullptr) << i;
        if (a) {
          ASSERT_EQ(*a, *b) << i;
        }
        continue;
      }
      auto [pa, fa] = plain.try_emplace(names[i], i);
      auto [pb, fb] = hashed.try_emplace_hashed(names[i], h, i);
      ASSERT_EQ(fa, fb) << i;
      ASSERT_EQ(*pa, *pb) << i;
    }
    EXPECT_EQ(plain.size(), hashed.size());
    EXPECT_EQ(hashed.ordered(), max_probe == 1);
    ASSERT_EQ(handed.size(), names.size());
    for (size_t i = 0; i < names.size(); ++i) ASSERT_EQ(handed[i], plain.hash(names[i])) << i;
  }
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}}) {
    size_t asked = 0;
    HashesAhead few(
        n, [&](size_t i) { return ++asked, uint64_t{i} * 31 + 7; }, [](uint64_t) {});
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(few.at(i), uint64_t{i} * 31 + 7) << n << " " << i;
    EXPECT_EQ(asked, n);
  }
}

// Names built to share one hash_bytes value under every seed, as a hostile wheel could: each
// 16-byte block comes in two forms whose first words' mixed values differ in bit 36 (bit 63 after
// the rotation, which the odd multiply and the add keep) and whose second words' differ in bit 63,
// so the state after the block is the same. 2^12 names from 12 blocks: one hash, every seed. The
// map must leave its table for the ordered fallback and still answer exactly.
TEST(ViewMap, NamesCraftedToCollideFallBackToOrder) {
  constexpr uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full;
  auto inverse = [](uint64_t a) {  // of an odd number mod 2^64, by Newton's iteration
    uint64_t x = a;
    for (int i = 0; i < 6; ++i) x *= 2 - a * x;
    return x;
  };
  auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto mixed = [&](uint64_t w) { return rotl(w * P2, 31) * P1; };  // what hash_bytes xors in per word
  auto unmixed = [&](uint64_t k) { return rotl(k * inverse(P1), 33) * inverse(P2); };
  ASSERT_EQ(unmixed(mixed(0x0123456789ABCDEFull)), 0x0123456789ABCDEFull);
  constexpr int kBlocks = 12;
  std::vector<std::array<std::string, 2>> forms(kBlocks);
  for (int b = 0; b < kBlocks; ++b) {
    const uint64_t w1 = 0x1000 + b, w2 = 0x2000 + b;
    const uint64_t w1x = unmixed(mixed(w1) ^ (uint64_t{1} << 36)), w2x = unmixed(mixed(w2) ^ (uint64_t{1} << 63));
    for (int f = 0; f < 2; ++f) {
      const uint64_t words[2] = {f ? w1x : w1, f ? w2x : w2};
      forms[b][f].assign(reinterpret_cast<const char*>(words), sizeof words);
    }
  }
  std::deque<std::string> names;
  for (uint32_t pick = 0; pick < (1u << kBlocks); ++pick) {
    std::string n;
    for (int b = 0; b < kBlocks; ++b) n += forms[b][(pick >> b) & 1];
    names.push_back(std::move(n));
  }
  for (uint64_t seed : {uint64_t{0}, process_hash_seed(), uint64_t{0x5EED}})
    for (const auto& n : names) ASSERT_EQ(hash_bytes(n, seed), hash_bytes(names.front(), seed)) << "seed " << seed;
  ViewMap<size_t> map;
  std::unordered_map<std::string_view, size_t> ref;
  for (size_t i = 0; i < names.size(); ++i) ASSERT_NO_FATAL_FAILURE(same_step(map, ref, names[i], i, true));
  EXPECT_TRUE(map.ordered()) << "every name probed past all the others in the table";
  for (size_t i = 0; i < names.size(); ++i) ASSERT_NO_FATAL_FAILURE(same_step(map, ref, names[i], i, false));
  EXPECT_EQ(map.size(), names.size());
}

TEST(SparseCapture, ViewsFetchedRangesAndAsksForTheRest) {
  SparseFile f(1000);
  std::vector<uint8_t> head(100, 1), tail(50, 2), mid(10, 3);
  f.add(0, head.data(), head.size());
  f.add(950, tail.data(), tail.size());
  EXPECT_EQ(f.view(10, 20).u8(), 1);
  EXPECT_THROW(f.view(990, 20), ParseError);  // past the end of the file: structure error
  try {
    f.view(500, 10);
    FAIL() << "a range not captured must ask for it";
  } catch (const NeedRanges& n) {
    ASSERT_EQ(n.ranges.size(), 1u);
    EXPECT_EQ(n.ranges[0].off, 500u);
  }
  f.add(100, mid.data(), mid.size());  // adjacent chunks merge
  EXPECT_EQ(f.view(95, 10).bytes(10)[9], 3);
  try {
    f.require({{0, 10}, {200, 5}, {300, 5}, {2000, 5}});
    FAIL();
  } catch (const NeedRanges& n) {
    EXPECT_EQ(n.ranges.size(), 2u);  // the missing ones inside the file, together
  }
}

// Ranges added in any order, streamed piece by piece, overlapping, touching or repeated, with and
// without the capacity hints: the file must hold exactly the bytes added, each view of a covered
// run must succeed with the file's bytes, and each view reaching an uncovered byte must ask for it.
TEST(SparseCapture, AnswersAsAByteMapOfWhatWasAdded) {
  std::mt19937 rng(48);
  for (int round = 0; round < 400; ++round) {
    const uint64_t size = 1 + rng() % 300;
    std::vector<uint8_t> bytes(size);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    std::vector<bool> held(size, false);
    SparseFile f(size);
    for (int k = 0, adds = 1 + static_cast<int>(rng() % 12); k < adds; ++k) {
      uint64_t off = rng() % size, len = 1 + rng() % (size - off);
      if (rng() % 3 == 0) f.expect({off, len});
      uint64_t at = off;
      const bool pieces = rng() % 2;
      while (at < off + len) {  // whole, or in pieces as a stream delivers it
        uint64_t n = pieces ? std::min<uint64_t>(off + len - at, 1 + rng() % 17) : off + len - at;
        f.add(at, bytes.data() + at, n);
        for (uint64_t i = at; i < at + n; ++i) held[i] = true;
        at += n;
      }
    }
    for (uint64_t off = 0; off < size; ++off)
      for (uint64_t len = 1; off + len <= size; len += 1 + len / 4) {
        const bool all = std::all_of(held.begin() + static_cast<ptrdiff_t>(off),
                                     held.begin() + static_cast<ptrdiff_t>(off + len), [](bool h) { return h; });
        ASSERT_EQ(f.has(off, len), all) << "round " << round << " [" << off << ", +" << len << ")";
        if (!all) {
          EXPECT_THROW(f.view(off, len), NeedRanges);
          continue;
        }
        auto got = f.view(off, len).bytes(static_cast<size_t>(len));
        ASSERT_TRUE(std::equal(got.begin(), got.end(), bytes.begin() + static_cast<ptrdiff_t>(off)))
            << "round " << round << " [" << off << ", +" << len << ")";
      }
  }
}

TEST(Json, OutsideInputNeverThrows) {
  JsonError e;
  EXPECT_FALSE(parse_json(std::string(100000, '['), &e));
  EXPECT_NE(e.message.find("nested more than 64"), std::string::npos);
  EXPECT_FALSE(parse_json("[1e999999]", &e));  // number overflow is out_of_range in nlohmann
  EXPECT_FALSE(parse_json("{\"a\": \"\xff\"}", &e));
  EXPECT_FALSE(parse_json("{\"a\": 1,}", &e));
  EXPECT_GT(e.byte, 0u);
  EXPECT_TRUE(parse_json("{\"a\": [\"[[[[\"]}"));  // brackets inside strings do not count
}

// The nesting bound (parse_json refuses a text nested deeper than max_depth before nlohmann's
// recursive parser sees it) skips strings in bulk. Held to a byte-by-byte walk over random texts
// of quotes, backslashes, brackets and filler, long strings crossing 16-byte blocks, escapes at
// the very end: the refusal, and the byte it names, are the walk's.
TEST(Json, NestingBoundSkipsStringsAsAByteWalkDoes) {
  auto walk = [](std::string_view t, size_t limit) -> size_t {
    size_t depth = 0;
    bool in_string = false, escape = false;
    for (size_t i = 0; i < t.size(); ++i) {
      const char c = t[i];
      if (in_string) {
        if (escape)
          escape = false;
        else if (c == '\\')
          escape = true;
        else if (c == '"')
          in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        if (++depth > limit) return i + 1;
      } else if ((c == ']' || c == '}') && depth > 0) {
        --depth;
      }
    }
    return 0;
  };
  std::mt19937_64 rng(48);
  const std::string alphabet = "\"\\[]{}a ,";
  size_t refused = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string t;
    for (size_t len = rng() % 80; t.size() < len;) {
      const uint64_t r = rng();
      if (r % 7 == 0)
        t += std::string(r % 40, 'x');  // a long run: a string's body crossing blocks
      else
        t += alphabet[r % alphabet.size()];
    }
    const size_t limit = rng() % 5;
    JsonError e;
    const auto parsed = parse_json(t, &e, limit);
    const size_t want = walk(t, limit);
    const bool said = !parsed && e.message.starts_with("nested more than");
    ASSERT_EQ(said, want != 0) << "text '" << t << "' limit " << limit;
    if (want) {
      ASSERT_EQ(e.byte, want) << "text '" << t << "' limit " << limit;
    }
    refused += want != 0;
  }
  EXPECT_GT(refused, 2000u);
}

TEST(HeaderFile, EmailParserSemantics) {
  auto h = parse_header_file(
      "Name: demo\r\nSummary:  one line  \nDescription: first\n  second\n\tthird\nRequires-Dist: a\n"
      "requires-dist: b\n\nbody: not a field\n");
  EXPECT_EQ(h.get("name"), "demo");
  EXPECT_EQ(h.get("Summary"), "one line");
  EXPECT_EQ(h.get("Description"), "first\n  second\n\tthird");
  EXPECT_EQ(h.get_all("Requires-Dist"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(h.body, "body: not a field\n");
  EXPECT_TRUE(h.problems.empty());
  auto bad = parse_header_file(" leading continuation\nno colon here\nOk: 1\n\xff: x\n");
  EXPECT_EQ(bad.problems.size(), 4u);  // continuation first, no colon, invalid UTF-8 twice (file + name)
  EXPECT_EQ(bad.get("Ok"), "1");
}

TEST(RecordCsv, AsPythonCsvReadsIt) {
  auto r = parse_record("a.py,sha256=x,1\r\n\"b,c.py\",sha256=y,2\n\n\"q\"\"uote\",,\nshort,row\n\"open");
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[1].path, "b,c.py");
  EXPECT_EQ(r.rows[2].path, "q\"uote");
  EXPECT_EQ(r.rows[2].line, 4u);
  // Python's csv yields ['short', 'row'] and ['open'] silently; both are malformed RECORD rows.
  ASSERT_EQ(r.problems.size(), 3u);
  EXPECT_NE(r.problems[0].find("line 5: expected 3 fields"), std::string::npos) << r.problems[0];
  EXPECT_NE(r.problems[1].find("inside a quoted field"), std::string::npos) << r.problems[1];
  EXPECT_NE(r.problems[2].find("line 6: expected 3 fields"), std::string::npos) << r.problems[2];
}

// The rows view the bytes their RecordFile holds: those stay where they are when the file moves
// (into WheelFacts' optional, from the thread that parsed it aside), short texts too, and the
// parsed text itself may go.
TEST(RecordCsv, RowsOutliveTheTextAndMoveWithTheirFile) {
  std::optional<RecordFile> kept;
  {
    std::string text = "a,b,1\n\"x\"\"y\",sha256=z,22\nc\\d.py,,\n";
    RecordFile parsed = parse_record(text);
    std::fill(text.begin(), text.end(), '#');
    kept = std::move(parsed);
    RecordFile again = std::move(*kept);
    kept = std::move(again);
  }
  ASSERT_EQ(kept->rows.size(), 3u);
  EXPECT_EQ(kept->rows[0].path, "a");
  EXPECT_EQ(kept->rows[0].size, "1");
  EXPECT_EQ(kept->rows[1].path, "x\"y");
  EXPECT_EQ(kept->rows[1].hash, "sha256=z");
  EXPECT_EQ(kept->rows[2].path, "c/d.py");  // read as installer reads it
  EXPECT_EQ(kept->rows[2].hash, "");
}

// Random RECORD texts of commas, quotes, both line ends, backslashes, spaces, a form feed, a tab,
// DEL, UTF-8 and plain runs longer than the 16 bytes parse_record scans at a time, read by parse_record and by Python's
// csv over the file (newline='', as installer and pip open it): the same rows of three fields, in order (the RECORD's
// backslashes read as '/'). Rows of other lengths are RECORD problems here and skipped there alike.
TEST(RecordCsv, RandomTextsAsPythonCsvReadsThem) {
  const char* const pieces[] = {"a",
                                "bc",
                                ",",
                                ",",
                                "\"",
                                "\"",
                                "\"\"",
                                "\r",
                                "\n",
                                "\r\n",
                                "\\",
                                " ",
                                "\xc3\xa9",
                                "\x0c",
                                "=1",
                                "\t",
                                "\x7f",
                                "pkg/sub/module_name.py",
                                "sha256=2-N6wxpy1-pTuevuERRiUMgMnyiFKIUinc9WAZ6h9GU"};
  std::vector<std::string> texts;
  uint64_t seed = 0x5EC0;
  for (int t = 0; t < 3000; ++t) {
    std::string text;
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    for (size_t n = (seed >> 40) % 40; n > 0; --n) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      text += pieces[(seed >> 33) % std::size(pieces)];
    }
    texts.push_back(std::move(text));
  }
  testing::TempDir dir;
  { std::ofstream(dir.file("in.json")) << nlohmann::json(texts).dump(); }
  const std::string script =
      "import csv, io, json, sys\n"
      "out = []\n"
      "for t in json.load(open(sys.argv[1], encoding='utf-8')):\n"
      "    rows = [r for r in csv.reader(io.StringIO(t, newline='')) if len(r) == 3]\n"
      "    out.append([[r[0].replace('\\\\', '/'), r[1], r[2]] for r in rows])\n"
      "json.dump(out, open(sys.argv[2], 'w'))\n";
  { std::ofstream(dir.file("read.py")) << script; }
  auto py = testing::run_command("python3 " + testing::shell_quote(dir.file("read.py")) + " " +
                                 testing::shell_quote(dir.file("in.json")) + " " +
                                 testing::shell_quote(dir.file("out.json")));
  if (py.exit_code == 127) GTEST_SKIP() << "no python3: " << py.err;
  ASSERT_EQ(py.exit_code, 0) << py.err;
  std::ifstream in(dir.file("out.json"));
  const nlohmann::json want = nlohmann::json::parse(in);
  ASSERT_EQ(want.size(), texts.size());
  size_t rows = 0;
  for (size_t t = 0; t < texts.size(); ++t) {
    const RecordFile r = parse_record(texts[t]);
    nlohmann::json got = nlohmann::json::array();
    for (const auto& row : r.rows) got.push_back({row.path, row.hash, row.size});
    ASSERT_EQ(got, want[t]) << nlohmann::json(texts[t]).dump();
    rows += r.rows.size();
  }
  EXPECT_GT(rows, 500u);  // the texts hold rows, not only problems
}

TEST(Parse, IsIdentifier) {
  for (const char* ok : {"a", "_x1", "numpy", "\xc3\xa9t\xc3\xa9"}) EXPECT_TRUE(is_identifier(ok)) << ok;
  for (const char* no : {"", "1a", "my-pkg", "a.b", "hook numpy"}) EXPECT_FALSE(is_identifier(no)) << no;
}

// The ASCII classes equal the C locale's ctype on every byte, and stay ASCII whatever locale is set.
TEST(Parse, AsciiClassesEqualTheCLocale) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    SCOPED_TRACE(b);
    EXPECT_EQ(is_digit(c), std::isdigit(b) != 0);
    EXPECT_EQ(is_alpha(c), std::isalpha(b) != 0);
    EXPECT_EQ(is_alnum(c), std::isalnum(b) != 0);
    EXPECT_EQ(is_space(c), std::isspace(b) != 0);
    EXPECT_EQ(is_hex_digit(c), std::isxdigit(b) != 0);
    EXPECT_EQ(ascii_lower(c), static_cast<char>(std::tolower(b)));
    EXPECT_EQ(ascii_upper(c), static_cast<char>(std::toupper(b)));
  }
  EXPECT_EQ(to_upper("sm_90a"), "SM_90A");
  EXPECT_EQ(to_lower("Python3.DLL"), "python3.dll");
  EXPECT_TRUE(iequals("KERNEL32.dll", "kernel32.DLL"));
  EXPECT_EQ(trim(" \t\v\f\r\n x \n"), "x");
}

// Each algorithm a RECORD may name is fetched once and kept: every Digest of it, on any thread,
// gives what Python's hashlib gives for the same bytes; a name OpenSSL does not know throws, and
// keeps throwing (it is not remembered).
// RECORD's digest form, against Python's base64.urlsafe_b64encode with the padding stripped: every
// length 0..40 (each remainder of 3), and bytes that map to '-' and '_'.
TEST(Digests, UrlsafeBase64AsPythonWritesIt) {
  std::string bytes = "\xff\xff\xff\xfb\xef\xbe";  // "____", "----"
  for (int k = 0; k < 34; ++k) bytes += static_cast<char>(0xfb + k * 37);
  std::string script = "import base64\nb = bytes([";
  for (unsigned char c : bytes) script += std::to_string(c) + ",";
  script += "])\nfor n in range(41): print(base64.urlsafe_b64encode(b[:n]).rstrip(b'=').decode())\n";
  auto r = testing::run_command("python3 -c " + testing::shell_quote(script));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream want(r.out);
  for (size_t n = 0; n <= bytes.size(); ++n) {
    std::string line;
    std::getline(want, line);
    EXPECT_EQ(base64_urlsafe_nopad(reinterpret_cast<const unsigned char*>(bytes.data()), n), line) << n;
  }
  EXPECT_NE(r.out.find('-'), std::string::npos);
  EXPECT_NE(r.out.find('_'), std::string::npos);
}

TEST(Digests, FetchedOnceAndAsHashlibSays) {
  const std::string text = "wheelcheck";
  const std::vector<std::string> algos = {"sha256", "sha384", "sha512", "sha1", "md5", "sha224", "sha512-256"};
  std::string script = "import hashlib\n";
  for (const auto& a : algos) script += "print(hashlib.new('" + a + "', b'" + text + "').hexdigest())\n";
  auto r = testing::run_command("python3 -c " + testing::shell_quote(script));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream want(r.out);
  for (const auto& a : algos) {
    std::string line;
    std::getline(want, line);
    for (int round = 0; round < 2; ++round) {
      std::vector<std::string> got(2);
      std::vector<std::thread> threads;
      for (size_t t = 0; t < got.size(); ++t)
        threads.emplace_back([&, t] {
          Digest d(a);
          d.update(text.data(), text.size());
          got[t] = d.digest_hex();
        });
      for (auto& t : threads) t.join();
      for (const auto& g : got) EXPECT_EQ(g, line) << a << " round " << round;
    }
  }
  for (int round = 0; round < 2; ++round) EXPECT_THROW(Digest("no-such-digest"), std::invalid_argument);
}

}  // namespace
}  // namespace wc

namespace wc {
namespace {

// The scratch files a spool and a spill file use: unnamed (nothing left in the folder), read back
// as written, a read past the end said as such, a folder that cannot take one an error.
TEST(ScratchFile, UnnamedWrittenAndReadBack) {
  testing::TempDir dir;
  testing::ScopedEnv tmpdir("TMPDIR", dir.path());
  std::string in;
  int fd = open_scratch_file("test", in);
  tmpdir.set(dir.file("missing"));
  std::string none;
  errno = 0;
  EXPECT_EQ(open_scratch_file("test", none), -1);
  EXPECT_NE(errno, 0);
  EXPECT_EQ(none, dir.file("missing"));
  ASSERT_GE(fd, 0);
  EXPECT_EQ(in, dir.path());
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  const std::string text = "0123456789";
  EXPECT_EQ(write_all_at(fd, text.data(), text.size(), 100), "");
  std::string back(4, '\0');
  EXPECT_EQ(read_all_at(fd, back.data(), back.size(), 103), "");
  EXPECT_EQ(back, "3456");
  EXPECT_EQ(read_all_at(fd, back.data(), back.size(), 108), "it ends early");
  ::close(fd);
  EXPECT_NE(write_all_at(fd, text.data(), text.size(), 0), "");  // a closed descriptor: why, not a crash
}

// Records appended from eight threads at once each come back as written, wherever they landed;
// what is not there, and a folder that takes no file, are errors naming the file and the folder.
TEST(ScratchFile, AppendedFromThreadsAndReadBack) {
  testing::TempDir dir;
  testing::ScopedEnv tmpdir("TMPDIR", dir.path());
  AppendFile file("records");
  EXPECT_EQ(file.dir(), dir.path());
  constexpr int kThreads = 8, kEach = 200;
  std::vector<std::vector<AppendFile::Place>> places(kThreads);
  auto record = [](int t, int k) {
    return std::string(static_cast<size_t>(t * 37 + k % 13), char('a' + t)) + "#" + std::to_string(k);
  };
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int k = 0; k < kEach; ++k) places[t].push_back(file.append(record(t, k)));
      });
  }
  uint64_t total = 0;
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kEach; ++k) {
      ASSERT_EQ(file.read(places[t][k]), record(t, k)) << t << " " << k;
      total += places[t][k].size;
    }
  EXPECT_EQ(file.bytes(), total);  // nothing overlaps, nothing between
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  try {
    file.read({total - 2, 10});
    ADD_FAILURE() << "a read past the end";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read the records file in " + dir.path() + " back: it ends early");
  }
  tmpdir.set(dir.file("missing"));
  try {
    AppendFile none("spill");
    ADD_FAILURE() << "a file in a missing folder";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot make a spill file in " + dir.file("missing") + ": ", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace wc
