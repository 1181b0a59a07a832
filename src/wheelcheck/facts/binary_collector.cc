#include "facts/binary_collector.h"

#include <algorithm>
#include <cstring>

#include "binary/binary_facts.h"
#include "binary/elf_reader.h"
#include "binary/fatbin.h"
#include "binary/macho_reader.h"
#include "binary/pe_reader.h"
#include "io/zip_stream.h"

namespace wc {
namespace {

constexpr uint64_t kPrefix = 1u << 20, kTail = 1u << 20;
constexpr uint64_t kMaxExtraBytes = 512ull << 20;  // tables fetched on the second read, per binary
constexpr int kMaxRounds = 6;  // the ELF reader needs two; the rest is headroom for odd layouts

struct Pending {
  size_t central_index;
  SparseFile file;
  BinaryFacts facts;
  FatbinScanner fatbins;
  std::vector<ByteRange> need;
  uint64_t fetched = 0;
};

// Runs the format's parser; returns false when it needs more bytes (p.need set).
bool try_parse(Pending& p) {
  BinaryFacts out;
  out.path = p.facts.path;
  out.format = p.facts.format;
  try {
    if (out.format == "elf") {
      ElfLayout layout = read_elf(p.file, out);
      merge_fatbins(out.fatbin, select_fatbins(p.fatbins, layout.nv_fatbin, out.errors));
    } else if (out.format == "fatbin") {
      out.arch = "cuda";
      out.fatbin = select_fatbins(p.fatbins, ByteRange{0, p.file.size()}, out.errors);
    } else if (out.format == "macho") {
      read_macho(p.file, out);
    } else {
      read_pe(p.file, out);
    }
  } catch (const NeedRanges& n) {
    p.need = n.ranges;
    return false;
  } catch (const ParseError& e) {
    out.errors.push_back(std::string(e.what()) + " (offset " + std::to_string(e.offset()) + ")");
    if (out.format == "elf") out.fatbin = select_fatbins(p.fatbins, std::nullopt, out.errors);
  }
  settle_gpu_facts(out);
  p.facts = std::move(out);
  return true;
}

}  // namespace

struct BinaryCollector::Impl {
  Impl(Source& s, const ZipIndex& i, WheelFacts& f) : src(s), idx(i), facts(f) {}
  Source& src;
  const ZipIndex& idx;
  WheelFacts& facts;
  // the entry streaming now
  std::optional<Pending> cur;
  uint64_t size = 0, pos = 0;
  std::vector<uint8_t> prefix, tail;
  std::string format;
  bool decided = false;
  std::vector<Pending> waiting;

  bool scans() const { return format == "elf" || format == "fatbin"; }
  void decide() {
    format = sniff_binary(prefix.data(), prefix.size());
    decided = prefix.size() >= 64 || pos >= size;
    if (decided && scans()) cur->fatbins.feed(prefix.data(), prefix.size());
  }
};

BinaryCollector::BinaryCollector(Source& src, const ZipIndex& idx, WheelFacts& facts)
    : impl_(std::make_unique<Impl>(src, idx, facts)) {}
BinaryCollector::~BinaryCollector() = default;

void BinaryCollector::begin_entry(const ZipEntry& z) {
  Impl& m = *impl_;
  m.cur.emplace();
  m.cur->central_index = z.central_index;
  m.cur->facts.path = z.name;
  m.size = z.uncompressed_size;
  m.pos = 0;
  m.prefix.clear();
  m.tail.clear();
  m.format.clear();
  m.decided = false;
}

void BinaryCollector::data(const uint8_t* p, size_t n) {
  Impl& m = *impl_;
  if (!m.cur) return;
  if (m.decided && m.format.empty()) {
    m.pos += n;
    return;
  }
  uint64_t start = m.pos;
  if (start < kPrefix) {
    size_t take = static_cast<size_t>(std::min<uint64_t>(n, kPrefix - start));
    m.prefix.insert(m.prefix.end(), p, p + take);
  }
  uint64_t tail_start = m.size > kTail ? m.size - kTail : 0;
  uint64_t tail_from = std::max(tail_start, kPrefix);
  if (start + n > tail_from) {
    uint64_t from = std::max(start, tail_from);
    m.tail.insert(m.tail.end(), p + (from - start), p + n);
  }
  m.pos += n;
  if (!m.decided) {
    m.decide();
  } else if (m.scans()) {
    m.cur->fatbins.feed(p, n);
  }
}

void BinaryCollector::end_entry(const EntryFacts& e) {
  Impl& m = *impl_;
  if (!m.cur) return;
  if (!m.decided) m.decide();
  if (m.format.empty() || !e.complete()) {
    m.cur.reset();
    return;
  }
  Pending p = std::move(*m.cur);
  m.cur.reset();
  p.facts.format = m.format;
  p.file = SparseFile(m.size);
  p.file.add(0, m.prefix.data(), m.prefix.size());
  if (!m.tail.empty()) p.file.add(m.size - m.tail.size(), m.tail.data(), m.tail.size());
  if (try_parse(p)) m.facts.binaries.push_back(std::move(p.facts));
  else m.waiting.push_back(std::move(p));
}

// Fetches what the parsers still need, all waiting binaries in one pass over the archive per round.
void BinaryCollector::finish() {
  Impl& m = *impl_;
  for (int round = 0; round < kMaxRounds && !m.waiting.empty(); ++round) {
    std::map<size_t, RereadSink> sinks;
    for (auto& p : m.waiting) {
      uint64_t upto = 0;
      for (const auto& r : p.need) upto = std::max(upto, r.end()), p.fetched += r.len;
      sinks[p.central_index] = [&p, upto](const uint8_t* d, size_t n, uint64_t off) {
        for (const auto& r : p.need) {
          uint64_t lo = std::max(r.off, off), hi = std::min(r.end(), off + n);
          if (lo < hi) p.file.add(lo, d + (lo - off), hi - lo);
        }
        return off + n < upto;
      };
    }
    auto errors = reread_entries(m.src, m.idx, sinks);
    std::vector<Pending> still;
    for (auto& p : m.waiting) {
      auto err = errors.find(p.central_index);
      if (err != errors.end() || p.fetched > kMaxExtraBytes) {
        p.facts.errors.push_back(err != errors.end() ? "second read failed: " + err->second
                                                     : "binary needs more than 512 MiB of tables; not parsed");
        m.facts.binaries.push_back(std::move(p.facts));
      } else if (try_parse(p)) {
        m.facts.binaries.push_back(std::move(p.facts));
      } else {
        still.push_back(std::move(p));
      }
    }
    m.waiting = std::move(still);
  }
  for (auto& p : m.waiting) {
    p.facts.errors.push_back("structures still out of reach after " + std::to_string(kMaxRounds) + " reads");
    m.facts.binaries.push_back(std::move(p.facts));
  }
  m.waiting.clear();
  std::sort(m.facts.binaries.begin(), m.facts.binaries.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
}

}  // namespace wc
