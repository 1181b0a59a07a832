// The single-pass reader: the binary capture gives the same facts as parsing the whole file, at
// every way the bytes can be chunked, and the ISA-L fast path reads every entry exactly as
// libarchive (the reference reader) does, faults included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>

#include "binary/binary_facts.h"
#include "facts/analyze.h"
#include "facts/binary_capture.h"
#include "io/inflate.h"
#include "io/zip_index.h"
#include "io/zip_stream.h"
#include "support/fixtures.h"
#include "support/test_support.h"
#include "util/digest.h"
#include "util/json_text.h"
#include "wheel_builder.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <isa-l/crc.h>
#endif

namespace wc {
namespace {

using testing::read_file;
using testing::run_command;
using testing::shell_quote;
using testing::TempDir;

nlohmann::json whole_file_facts(const std::string& name, const std::vector<uint8_t>& bytes) {
  BinaryFacts b;
  b.path = name;
  parse_binary_image(bytes.data(), bytes.size(), b);
  return binary_to_json(b);
}

// Streams `bytes` into a capture in chunks of `chunk`; serves what it still misses from `bytes`.
// Returns the facts and how many bytes the re-reads had to supply.
// A `first` chunk of another size, when given, puts every later boundary elsewhere.
std::pair<nlohmann::json, uint64_t> captured_facts(const std::string& name, const std::vector<uint8_t>& bytes,
                                                   size_t chunk, uint64_t cap = kRetainCap, size_t first = 0) {
  BinaryCapture c(name, bytes.size(), cap);
  for (size_t off = 0, step; off < bytes.size(); off += step)
    c.data(bytes.data() + off, step = std::min(off == 0 && first ? first : chunk, bytes.size() - off));
  uint64_t reread = 0;
  for (int round = 0; round < 4 && !c.finish(); ++round)
    for (const auto& r : c.missing()) {
      c.add(r.off, bytes.data() + r.off, r.len);
      reread += r.len;
    }
  return {binary_to_json(c.take()), reread};
}

std::string pseudo_random_text(size_t n, uint32_t seed) {
  std::string s;
  s.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    s.push_back(static_cast<char>('a' + (seed >> 24) % 7));  // compressible, not trivially
  }
  return s;
}

class CaptureFixture : public ::testing::Test {
 protected:
  TempDir dir;
  std::vector<uint8_t> gcc(const std::string& name, const std::string& src, const std::string& flags) {
    std::string s = dir.file(name + ".c");
    testing::write_file(s, std::vector<uint8_t>(src.begin(), src.end()));
    auto r = run_command("gcc -O1 " + flags + " " + shell_quote(s) + " -o " + shell_quote(dir.file(name)));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return read_file(dir.file(name));
  }
  // A shared object whose first loadable segment is 3 MiB: a note section before .dynsym and
  // .dynstr pushes them past the first MiB (as a large .rodata or .gnu.hash does in real libraries);
  // 2 MiB of .data after the dynamic section keep them out of the tail the capture always keeps.
  std::vector<uint8_t> big_first_segment() {
    return gcc("big.so",
               "__asm__(\".section .note.big,\\\"a\\\",@note\\n.balign 4\\n.long 4\\n.long 3145720\\n.long 1\\n"
               ".ascii \\\"BIG\\\\0\\\"\\n.zero 3145720\\n.previous\\n\");\n"
               "#include <string.h>\nchar pad[2 << 20] = {1};\n"
               "int f(char* a, const char* b, unsigned n) { memcpy(a, b, n); return pad[n]; }\n",
               "-shared -fPIC -Wl,-soname,libbig.so.3 -Wl,-rpath,'$ORIGIN/lib'");
  }
};

TEST_F(CaptureFixture, ChunkingNeverChangesTheFacts) {
  std::map<std::string, std::vector<uint8_t>> files = {
      {"small.so", gcc("small.so", "#include <stdlib.h>\nvoid* g(unsigned n) { return reallocarray(0, n, 2); }\n",
                       "-shared -fPIC -Wl,-soname,libsmall.so.1")},
      {"big.so", big_first_segment()},
      {"tiny32be", testing::tiny_elf(false, true, 20)},
      {"tiny64", testing::tiny_elf(true, false, 62)},
      {"macho", testing::macho_thin(0x0100000c, 0x000b0000, {"/usr/lib/libSystem.B.dylib"}, "@loader_path")},
      {"pe", testing::pe_image(0x8664, {"KERNEL32.dll", "python312.dll"})},
      {"fatbin", testing::synth_container({{2, 90}, {1, 90}})},
  };
  for (const auto& [name, bytes] : files) {
    auto want = whole_file_facts(name, bytes);
    ASSERT_FALSE(want["format"].get<std::string>().empty()) << name;
    for (size_t chunk : {size_t{1} << 20, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{4093},
                         (size_t{1} << 20) + 7, bytes.size()}) {
      if (chunk == 1 && bytes.size() > (1u << 20)) continue;  // byte-at-a-time over MiBs: slow, nothing new
      auto [got, reread] = captured_facts(name, bytes, chunk);
      EXPECT_EQ(got, want) << name << " in chunks of " << chunk;
      EXPECT_EQ(reread, 0u) << name << " in chunks of " << chunk << ": the plan should have kept everything";
    }
  }
}

TEST_F(CaptureFixture, FirstSegmentPastTheFirstMebibyteIsKeptInOnePass) {
  auto bytes = big_first_segment();
  auto want = whole_file_facts("big.so", bytes);
  EXPECT_EQ(want["soname"], "libbig.so.3");
  EXPECT_FALSE(want["version_needs"].empty());
  // Through a wheel, read by the analyzer: the same facts, and nothing inflated twice.
  auto zip = testing::WheelBuilder("pkg", "1.0", "cp312-cp312-manylinux_2_17_x86_64")
                 .purelib(false)
                 .add("pkg/big.so", std::string(bytes.begin(), bytes.end()))
                 .build();
  auto f = testing::facts_of(zip, "pkg-1.0-cp312-cp312-manylinux_2_17_x86_64.whl");
  ASSERT_EQ(f.binaries.size(), 1u);
  auto got = binary_to_json(f.binaries[0]);
  got["path"] = "big.so";
  EXPECT_EQ(got, want);
  EXPECT_EQ(f.reinflated_bytes, 0u);
}

TEST_F(CaptureFixture, TablesPastTheRetainCapAreReadAgainAndCounted) {
  auto bytes = big_first_segment();
  auto want = whole_file_facts("big.so", bytes);
  // A 2 MiB cap: .dynstr (past 3 MiB) streams by before the dynamic section says where it is.
  auto [got, reread] = captured_facts("big.so", bytes, 1 << 16, 2u << 20);
  EXPECT_EQ(got, want);
  EXPECT_GT(reread, 0u);
  EXPECT_LT(reread, 64u << 10) << "only the tables are read again, not the segment";
}

// lld writes the section name table between .symtab and .strtab: with a large string table (an
// unstripped library) it lies far before the section headers and the tail the capture keeps. The
// capture finds it by its own name in the bytes no segment maps, wherever the chunks cut that name.
TEST_F(CaptureFixture, SectionNamesFarFromTheEndAreFoundByTheirName) {
  if (run_command("command -v ld.lld").exit_code != 0)
    GTEST_SKIP() << "ld.lld missing (scripts/install-deps.sh installs lld)";
  auto bytes =
      gcc("lld.so",
          "__asm__(\".macro many\\n.set a_local_symbol_with_a_name_long_enough_to_grow_the_string_table_\\\\@, 1\\n"
          ".endm\\n.rept 50000\\nmany\\n.endr\\n\");\nint f(int x) { return x + 1; }\n",
          "-shared -fPIC -fuse-ld=lld -Wl,-soname,liblld.so.1");
  const std::string_view name{"\0.shstrtab\0", 11};
  auto at = std::search(bytes.begin(), bytes.end(), name.begin(), name.end());
  ASSERT_NE(at, bytes.end());
  const size_t hit = static_cast<size_t>(at - bytes.begin());
  ASSERT_GT(bytes.size() - hit, size_t{3} << 19) << "the name table should lie far before the tail kept";
  ASSERT_GT(hit, size_t{1} << 20) << "and after the first MiB, which is scanned in one piece";
  auto want = whole_file_facts("lld.so", bytes);
  EXPECT_EQ(want["soname"], "liblld.so.1");
  for (size_t cut = 0; cut <= name.size(); ++cut)  // the first chunk ends inside the name, or around it
    for (size_t chunk : {size_t{1} << 20, size_t{4093}, size_t{7}}) {
      auto [got, reread] = captured_facts("lld.so", bytes, chunk, kRetainCap, hit + cut);
      EXPECT_EQ(got, want) << "cut at +" << cut << ", then chunks of " << chunk;
      EXPECT_EQ(reread, 0u) << "cut at +" << cut << ", then chunks of " << chunk << ": the name scan missed the table";
    }
  for (size_t chunk : {size_t{1} << 16, size_t{65}}) {
    auto [got, reread] = captured_facts("lld.so", bytes, chunk);
    EXPECT_EQ(got, want) << "chunks of " << chunk;
    EXPECT_EQ(reread, 0u) << "chunks of " << chunk;
  }
}

// One worker, several, and one large entry inflated on one core while another hashes and scans it:
// the same facts every way, limits included.
TEST_F(CaptureFixture, ThreadsAndThePipelineNeverChangeTheFacts) {
  auto big = big_first_segment();
  auto zip = testing::WheelBuilder("pkg", "1.0", "cp312-cp312-manylinux_2_17_x86_64")
                 .purelib(false)
                 .add("pkg/big.so", std::string(big.begin(), big.end()))
                 .add("pkg/data.bin", pseudo_random_text(6u << 20, 9))  // over the threshold set below
                 .add("pkg/small.txt", "hello")
                 .build();
  MemorySource src("pkg-1.0-cp312-cp312-manylinux_2_17_x86_64.whl", zip);
  auto run = [&](unsigned threads, uint64_t total_limit) {
    AnalyzeOptions opt;
    opt.threads = threads;
    opt.pipeline_min_bytes = 4u << 20;
    opt.limits.max_total_uncompressed_bytes = total_limit;
    auto j = facts_to_json(analyze_wheel(src, opt));
    return j;
  };
  for (uint64_t limit : {uint64_t{1} << 40, uint64_t{5} << 20}) {
    auto one = run(1, limit);
    for (unsigned threads : {2u, 3u}) EXPECT_EQ(run(threads, limit), one) << threads << " threads, limit " << limit;
  }
}

// The reader makes a capture only for an entry whose first bytes are a binary's: the same entries
// end as binaries as when every entry was fed to a capture of its own (the reference here), a
// truncated ELF header and a Java class header (a universal Mach-O only when named like a library) included.
TEST_F(CaptureFixture, OnlyEntriesSniffedAsBinariesAreCaptured) {
  auto lib = gcc("lib.so", "int f(int x) { return x + 1; }\n", "-shared -fPIC");
  std::map<std::string, std::string> entries = {
      {"pkg/lib.so", std::string(lib.begin(), lib.end())},
      {"pkg/tiny.so", std::string(lib.begin(), lib.begin() + 40)},  // an ELF header cut at 40 bytes
      {"pkg/head.so", std::string(lib.begin(), lib.begin() + 64)},  // exactly the sniffed prefix
      {"pkg/fat.dylib", std::string("\xca\xfe\xba\xbe\0\0\0\x34", 8) + std::string(12, '\0')},
      {"pkg/Fat.class", std::string("\xca\xfe\xba\xbe\0\0\0\x34", 8) + std::string(12, '\0')},
      {"pkg/notes.txt", std::string(40, 'n')},
      {"pkg/mod.py", pseudo_random_text(100000, 3)},
      {"pkg/empty.so", ""},
  };
  testing::WheelBuilder w("pkg", "1.0", "cp312-cp312-manylinux_2_17_x86_64");
  w.purelib(false);
  for (const auto& [name, bytes] : entries) w.add(name, bytes);
  auto zip = w.build();
  MemorySource src("pkg-1.0-cp312-cp312-manylinux_2_17_x86_64.whl", zip);
  WheelFacts f = analyze_wheel(src, AnalyzeOptions{});
  std::map<std::string, std::string> got, want;
  for (const auto& b : f.binaries) got[b.path] = binary_to_json(b).dump();
  for (const auto& [name, bytes] : entries) {
    BinaryCapture c(name, bytes.size());
    c.data(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (!c.finish()) continue;
    if (c.is_binary()) want[name] = binary_to_json(c.take()).dump();
  }
  EXPECT_EQ(got, want);
  EXPECT_TRUE(want.count("pkg/lib.so") && want.count("pkg/head.so") && want.count("pkg/fat.dylib"));
  EXPECT_FALSE(want.count("pkg/Fat.class") || want.count("pkg/notes.txt") || want.count("pkg/mod.py"));
}

// --- the fast path against libarchive -------------------------------------------------------------

struct EntryOutcome {
  std::string sha256;
  uint64_t bytes = 0;
  bool ok = false;
};

std::map<size_t, EntryOutcome> via_fast_path(const std::vector<uint8_t>& zip, const ZipIndex& idx) {
  MemorySource src("t.whl", zip);
  std::map<size_t, EntryOutcome> out;
  for (const auto& z : idx.entries) {
    if (z.kind != EntryKind::file || !fast_path_supports(z)) continue;
    Digest d("sha256");
    EntryOutcome o;
    EntryRead r = read_entry(src, z, [&](const uint8_t* p, size_t n, uint64_t off) {
      EXPECT_EQ(off, o.bytes);
      d.update(p, n);
      o.bytes += n;
      return true;
    });
    EXPECT_LE(o.bytes, z.uncompressed_size) << z.name << ": more bytes than declared";
    o.ok = r.error.empty();
    o.sha256 = d.digest_b64();
    out[z.central_index] = o;
  }
  return out;
}

class LibarchiveOutcomes : public EntryVisitor {
 public:
  std::map<size_t, EntryOutcome> out;
  bool begin(const ZipEntry& z) override {
    if (z.kind != EntryKind::file) return false;
    cur_.emplace("sha256");
    out[z.central_index] = {};
    bytes_ = 0;
    return true;
  }
  bool data(const uint8_t* p, size_t n) override {
    cur_->update(p, n);
    bytes_ += n;
    return true;
  }
  void end(const ZipEntry& z, const std::string& error) override {
    auto& o = out[z.central_index];
    o.ok = error.empty() && bytes_ == z.uncompressed_size;
    o.bytes = bytes_;
    if (cur_) o.sha256 = cur_->digest_b64();
    cur_.reset();
  }

 private:
  std::optional<Digest> cur_;
  uint64_t bytes_ = 0;
};

// Both readers agree on every entry: intact with the same bytes, or both report a fault.
void expect_readers_agree(const std::vector<uint8_t>& zip, const std::string& what) {
  MemorySource src("t.whl", zip);
  ZipIndex idx = read_zip_index(src);
  auto fast = via_fast_path(zip, idx);
  LibarchiveOutcomes la;
  stream_entries(src, idx, la);
  for (const auto& [i, o] : fast) {
    SCOPED_TRACE(what + ": " + idx.entries[i].name);
    ASSERT_TRUE(la.out.count(i));
    EXPECT_EQ(o.ok, la.out[i].ok);
    if (o.ok && la.out[i].ok) {
      EXPECT_EQ(o.sha256, la.out[i].sha256);
    }
  }
}

TEST(Inflate, AgreesWithLibarchiveOnWellFormedWheels) {
  auto zip = testing::WheelBuilder("pkg", "1.0")
                 .add("pkg/empty.txt", "")
                 .add("pkg/one.txt", "x")
                 .add("pkg/stored.bin", pseudo_random_text(300000, 1), /*store=*/true)
                 .add("pkg/text.txt", pseudo_random_text(3u << 20, 2))
                 .add("pkg/zeros.bin", std::string(5u << 20, '\0'))
                 .build();
  expect_readers_agree(zip, "built wheel");
  MemorySource src("t.whl", zip);
  ZipIndex idx = read_zip_index(src);
  auto fast = via_fast_path(zip, idx);
  size_t checked = 0;
  for (const auto& [i, o] : fast) {
    EXPECT_TRUE(o.ok) << idx.entries[i].name;
    EXPECT_EQ(o.bytes, idx.entries[i].uncompressed_size);
    ++checked;
  }
  EXPECT_EQ(checked, idx.entries.size());
}

// Offsets into a built zip, from its own index.
struct Layout {
  ZipEntry entry;
  uint64_t central_record = 0;  // offset of this entry's central directory record
};

Layout layout_of(const std::vector<uint8_t>& zip, const std::string& name) {
  MemorySource src("t.whl", zip);
  ZipIndex idx = read_zip_index(src);
  Layout l;
  for (const auto& z : idx.entries)
    if (z.name == name) l.entry = z;
  // Central records start with PK\1\2; find the one naming `name`.
  for (uint64_t off = idx.central_directory_offset; off + 46 < zip.size(); ++off) {
    if (std::memcmp(&zip[off], "PK\x01\x02", 4) != 0) continue;
    uint16_t len = static_cast<uint16_t>(zip[off + 28] | zip[off + 29] << 8);
    if (std::string(reinterpret_cast<const char*>(&zip[off + 46]), len) == name) l.central_record = off;
  }
  return l;
}

TEST(Inflate, AgreesWithLibarchiveOnCorruptEntries) {
  const std::string name = "pkg/text.txt";
  auto good = testing::WheelBuilder("pkg", "1.0").add(name, pseudo_random_text(200000, 3)).build();
  Layout l = layout_of(good, name);
  ASSERT_NE(l.central_record, 0u);
  ASSERT_NE(l.entry.data_offset, 0u);
  struct Case {
    std::string what;
    std::function<void(std::vector<uint8_t>&)> edit;
    std::string expect;  // in the fast path's error
  } cases[] = {
      // Both headers: the builder writes the CRC into the local header too, as seekable writers do.
      {"CRC-32 in the central directory and the local header",
       [&](auto& z) {
         z[l.central_record + 16] ^= 0x5a;
         z[l.entry.local_offset + 14] ^= 0x5a;
       },
       "CRC-32"},
      {"a byte in the middle of the deflate data",
       [&](auto& z) { z[l.entry.data_offset + l.entry.compressed_size / 2] ^= 0xff; }, ""},
      {"the first deflate byte (block type 3)", [&](auto& z) { z[l.entry.data_offset] |= 0x06; },
       "invalid deflate block"},
      {"declared size one byte short", [&](auto& z) { z[l.central_record + 24] -= 1; }, ""},
  };
  for (auto& c : cases) {
    auto zip = good;
    c.edit(zip);
    expect_readers_agree(zip, c.what);
    MemorySource src("t.whl", zip);
    ZipIndex idx = read_zip_index(src);
    for (const auto& z : idx.entries) {
      if (z.name != name || !fast_path_supports(z)) continue;
      EntryRead r = read_entry(src, z, [](const uint8_t*, size_t, uint64_t) { return true; });
      EXPECT_FALSE(r.error.empty()) << c.what;
      EXPECT_NE(r.error.find(c.expect), std::string::npos) << c.what << ": " << r.error;
    }
  }
}

TEST(Inflate, StopsWhenTheSinkSaysSo) {
  auto zip = testing::WheelBuilder("pkg", "1.0").add("pkg/a.txt", pseudo_random_text(4u << 20, 4)).build();
  MemorySource src("t.whl", zip);
  ZipIndex idx = read_zip_index(src);
  for (const auto& z : idx.entries) {
    if (z.name != "pkg/a.txt") continue;
    uint64_t seen = 0;
    EntryRead r = read_entry(src, z, [&](const uint8_t*, size_t n, uint64_t) {
      seen += n;
      return false;
    });
    EXPECT_TRUE(r.stopped);
    EXPECT_TRUE(r.error.empty());
    EXPECT_LE(seen, 1u << 20);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// Whether the upper halves of ymm0-15 or zmm0-15 are in use (XINUSE bits 2 and 6, read by
// XGETBV with ECX=1), or nullopt where the CPU cannot say.
std::optional<uint64_t> upper_vector_state() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return std::nullopt;  // OSXSAVE
  if (!__get_cpuid_count(0xD, 1, &a, &b, &c, &d) || !(a & (1u << 2))) return std::nullopt;
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  return ((uint64_t{hi} << 32) | lo) & ((1u << 2) | (1u << 6));
}

// ISA-L's CRC-32 of 256 bytes or more on an AVX-512 machine leaves zmm0-11 in use; the SSE code that
// runs next (OpenSSL's SHA-NI digest in every sink) paid for it until the read cleared them.
TEST(Inflate, LeavesNoUpperVectorStateForTheSseCodeAfterIt) {
  if (!upper_vector_state()) GTEST_SKIP() << "this CPU cannot report which vector state is in use (XGETBV 1)";
  const std::string text = pseudo_random_text(3u << 20, 11);
  crc32_gzip_refl(0, reinterpret_cast<const uint8_t*>(text.data()), 4096);
  if (*upper_vector_state() == 0)
    GTEST_SKIP() << "ISA-L's CRC-32 leaves no upper vector state on this CPU (no AVX-512 path): nothing to clear";
  auto zip = testing::WheelBuilder("pkg", "1.0").add("pkg/a.txt", text).add("pkg/b.txt", text, /*store=*/true).build();
  MemorySource src("t.whl", zip);
  ZipIndex idx = read_zip_index(src);
  int read = 0;
  for (const auto& z : idx.entries) {
    if (z.name != "pkg/a.txt" && z.name != "pkg/b.txt") continue;
    ++read;
    crc32_gzip_refl(0, reinterpret_cast<const uint8_t*>(text.data()), 4096);  // in use as the read starts
    size_t calls = 0, dirty = 0;
    EntryRead r = read_entry(src, z, [&](const uint8_t*, size_t, uint64_t) {
      ++calls;
      dirty += *upper_vector_state() != 0;
      return true;
    });
    EXPECT_TRUE(r.error.empty()) << z.name << ": " << r.error;
    EXPECT_GT(calls, 1u) << z.name;
    EXPECT_EQ(dirty, 0u) << z.name << ": the sink was called with the upper vector state in use " << dirty << " of "
                         << calls << " times";
  }
  EXPECT_EQ(read, 2);
}
#endif

TEST(Inflate, PrefixesAndReadsAfterAnEarlyStop) {
  std::string text = pseudo_random_text(3u << 20, 6);
  auto zip = testing::WheelBuilder("pkg", "1.0").add("pkg/a.txt", text).add("pkg/b.txt", text, /*store=*/true).build();
  MemorySource src("t.whl", zip);
  ZipIndex idx = read_zip_index(src);
  for (const auto& z : idx.entries) {
    if (z.name != "pkg/a.txt" && z.name != "pkg/b.txt") continue;
    for (uint64_t limit : {uint64_t{1}, uint64_t{4096}, uint64_t{65536}, uint64_t{(1u << 20) + 3}}) {
      std::string got;
      EntryRead r = read_entry(
          src, z,
          [&](const uint8_t* p, size_t n, uint64_t) {
            got.append(reinterpret_cast<const char*>(p), n);
            return true;
          },
          limit);
      EXPECT_TRUE(r.error.empty()) << z.name << " " << limit << ": " << r.error;
      EXPECT_TRUE(r.stopped);
      if (z.method == 8) {
        EXPECT_EQ(got.size(), limit) << "deflate output is cut at the limit";
      }
      EXPECT_GE(got.size(), limit);
      EXPECT_EQ(got.substr(0, limit), text.substr(0, limit)) << z.name << " " << limit;
    }
  }
  // The same thread then reads the whole entry intact: nothing of the stopped stream carries over.
  auto again = via_fast_path(zip, idx);
  for (const auto& [i, o] : again) EXPECT_TRUE(o.ok) << idx.entries[i].name;
}

// Real wheels from the test cache (tools/fetch_wheels.py; absent offline): every entry read by
// both readers, byte for byte. Under sanitizers (make test-sanitize) the small ones only.
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kMaxCachedWheel = 2u << 20;
#else
constexpr size_t kMaxCachedWheel = 20u << 20;
#endif
TEST(Inflate, AgreesWithLibarchiveOnCachedRealWheels) {
  // The manifest's small wheels are fetched here too (once, under the cache's lock): on a cold cache
  // this test must not depend on the real-wheel tests having run before it.
  bool offline = false;
  std::string err = testing::fetch_real_wheels({}, &offline);
  if (offline) GTEST_SKIP() << "PyPI not reachable: " << err;
  ASSERT_EQ(err, "") << err;
  const std::string dir = testing::real_wheel_cache();
  auto listing = run_command("ls " + shell_quote(dir) + "/*.whl 2>/dev/null");
  size_t n = 0;
  std::string line;
  std::istringstream in(listing.out);
  while (std::getline(in, line)) {
    auto bytes = read_file(line);
    if (bytes.size() > kMaxCachedWheel) continue;  // the large ones belong to ctest -L large
    expect_readers_agree(bytes, line);
    ++n;
  }
  if (n == 0) GTEST_SKIP() << "no cached real wheels in " << dir << " (run tools/fetch_wheels.py)";
}

}  // namespace
}  // namespace wc
