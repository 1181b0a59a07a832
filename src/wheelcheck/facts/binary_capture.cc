#include "facts/binary_capture.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "binary/elf_reader.h"
#include "binary/fatbin.h"
#include "binary/macho_reader.h"
#include "binary/pe_reader.h"

namespace wc {
namespace {

constexpr uint64_t kHead = 1u << 20;     // kept from every binary: headers, load commands, small files whole
constexpr uint64_t kTail = 1u << 20;     // kept from every binary: section headers and tables linkers put last
constexpr uint64_t kSmallPe = 8u << 20;  // PE files this small are kept whole (imports sit anywhere)

}  // namespace

// What all captures in the process retain at once is bounded (peak memory does not grow with the
// number of threads or the size of the binaries); a capture that finds the budget spent retains
// less, and what it then misses costs a second pass over that entry (counted), not memory.
std::atomic<uint64_t> g_retained{0};

bool charge(uint64_t n) {
  uint64_t now = g_retained.load();
  do {
    if (now + n > kRetainBudget) return false;
  } while (!g_retained.compare_exchange_weak(now, now + n));
  return true;
}

// Bytes kept whole while they stream by, from `off` up to (not including) `until`, until released.
struct Retained {
  uint64_t off = 0, until = 0;
  std::vector<uint8_t> bytes;
  bool released = false;
  Retained() = default;
  Retained(uint64_t o, uint64_t u, bool r) : off(o), until(u), released(r) {}
  Retained(Retained&& o) noexcept { *this = std::move(o); }
  Retained& operator=(Retained&& o) noexcept {
    release();
    off = o.off, until = o.until, released = o.released, bytes = std::move(o.bytes);
    o.bytes.clear();
    o.released = true;
    return *this;
  }
  ~Retained() { release(); }

  uint64_t end() const { return off + bytes.size(); }
  bool holds(const ByteRange& r) const { return !released && r.off >= off && r.end() <= end(); }
  void keep(uint64_t start, const uint8_t* p, size_t n) {
    if (released || start + n <= off || start >= until) return;
    uint64_t lo = std::max(start, off);
    if (lo != end()) return;  // grows contiguously from `off` only
    uint64_t hi = std::min(start + n, until);
    if (!charge(hi - lo)) {  // the budget is spent: keep what is here
      until = end();
      return;
    }
    if (bytes.empty() && until != UINT64_MAX) bytes.reserve(until - off);  // one allocation, no doubling copies
    bytes.insert(bytes.end(), p + (lo - start), p + (hi - start));
  }
  void truncate(uint64_t len) {
    if (bytes.size() <= len) return;
    g_retained -= bytes.size() - len;
    bytes.resize(len);
  }
  void release() {
    released = true;
    g_retained -= bytes.size();
    bytes.clear();
    bytes.shrink_to_fit();
  }
};

// The section name table's own name, which every linker writes into it: found in the bytes no
// segment maps, it shows where the table is before the section headers (which come last) do.
constexpr std::string_view kShstrtabName{"\0.shstrtab\0", 11};
constexpr uint64_t kNameWindow = 16u << 10;  // kept either side of a match
constexpr int kMaxNameMatches = 8;

struct BinaryCapture::Impl {
  std::string path, format;
  uint64_t size = 0, pos = 0, retain_cap = kRetainCap;
  std::vector<uint8_t> prefix;  // the first bytes, until the format is known
  bool sniffed = false;
  // What is kept: the head [0, ...) and the plan's region until release_after has streamed past,
  // the plan's ranges, the tail; ranges are copied into `file` as they complete.
  Retained head{0, UINT64_MAX, false}, region;
  uint64_t release_after = 0;
  uint64_t plan_wait = 0;  // the headers the plan needs end here, ahead of the stream
  bool planned = false;
  bool second_pass = false;  // the fatbin scan and the tail came from the first pass
  std::vector<ByteRange> wanted;
  std::vector<ByteRange> loaded;  // mapped by the loader (from the plan)
  std::string unmapped;           // the last bytes outside `loaded`, for the name scan
  uint64_t unmapped_end = 0;
  int name_matches = 0;
  SparseFile file;
  std::vector<uint8_t> tail;
  FatbinScanner fatbins;
  std::vector<ByteRange> missing;
  BinaryFacts facts;

  bool scans() const { return format == "elf" || format == "fatbin" || format == "pe"; }

  void sniff(bool at_end) {
    if (prefix.size() < 64 && !at_end) return;
    sniffed = true;
    format = sniff_binary(prefix.data(), prefix.size(), path);
    file = SparseFile(size);
    if (format.empty()) return;
    const std::vector<uint8_t> first = std::move(prefix);
    prefix.clear();
    consume(first.data(), first.size());
  }

  bool from_retained(const ByteRange& r) {
    for (const Retained* k : {&head, &region})
      if (!k->released && k->holds(r)) {
        file.add(r.off, k->bytes.data() + (r.off - k->off), r.len);
        return true;
      }
    return false;
  }

  void want(const ByteRange& r) {
    for (const auto& w : wanted)
      if (w.off == r.off && w.len == r.len) return;
    wanted.push_back(r);
    file.expect(r);
  }

  // Runs `step` against the sparse file, satisfying what it asks for from the retained bytes; a
  // range still ahead of the stream becomes wanted, one behind it and not retained is missing.
  // Returns true when the step completed (false too when it found the bytes malformed).
  template <typename Step>
  bool satisfy(Step&& step, bool at_end) {
    for (int round = 0; round < 64; ++round) {
      try {
        step();
        return true;
      } catch (const ParseError&) {
        return false;  // malformed: the full parse at the end reports it
      } catch (const NeedRanges& need) {
        bool progress = false;
        for (const auto& r : need.ranges) {
          if (from_retained(r))
            progress = true;
          else if (r.off >= pos && !at_end)
            want(r);
          else if (at_end)
            missing.push_back(r);
        }
        if (!progress) return false;
      }
    }
    return false;
  }

  void plan() {
    CapturePlan p;
    bool ok = satisfy(
        [&] {
          if (format == "elf")
            p = elf_capture_plan(file, retain_cap);
          else if (format == "macho")
            p = macho_capture_plan(file);
          else if (format == "pe")
            p = pe_capture_plan(file);
        },
        false);
    if (!ok && pos < kHead && pos < size) return;  // the headers are not all here yet
    if (!ok && pos < size) {
      // Headers further on (a program header table patchelf moved to a new segment at the end):
      // wait for them, keeping the head meanwhile (up to the cap).
      uint64_t ahead = 0;
      for (const auto& r : wanted) ahead = std::max(ahead, r.end());
      if (ahead > pos) {
        plan_wait = ahead;
        return;
      }
    }
    planned = true;
    loaded = std::move(p.loaded);
    scan_unmapped(0, head.bytes.data(), head.bytes.size());  // what streamed before the plan
    for (const auto& r : p.ranges) want(r);
    // What of the ranges already streamed past comes from the head now (it holds every byte so
    // far, up to the cap); the rest streams into `file` as it comes.
    for (const auto& r : p.ranges)
      if (r.off < head.end()) file.add(r.off, head.bytes.data() + r.off, std::min(r.end(), head.end()) - r.off);
    head.until = std::max(kHead, p.retain_until);
    if (format == "pe" && size <= kSmallPe) head.until = size;  // imports sit anywhere
    head.truncate(head.until);
    if (head.until != UINT64_MAX) head.bytes.reserve(std::min(head.until, size));
    region = Retained(p.region.off, p.region.end(), p.region.len == 0);
    release_after = p.release_after;
  }

  // Once the dynamic section has streamed past: the tables it locates are copied from the retained
  // bytes, or wanted when they lie ahead (a .dynstr patchelf moved to the end); then those go.
  void release_retained() {
    std::vector<ByteRange> tables;
    bool ok = satisfy([&] { tables = elf_dynamic_ranges(file); }, false);
    for (const auto& r : ok ? tables : std::vector<ByteRange>{})
      if (!from_retained(r) && r.off >= pos) want(r);
    head.release();
    region.release();
  }

  bool mapped(uint64_t off) const {
    for (const auto& l : loaded)
      if (off >= l.off && off - l.off < l.len) return true;
    return false;
  }

  // Bytes no segment maps (section contents the loader ignores): look for the section name table.
  void scan_unmapped(uint64_t start, const uint8_t* p, size_t n) {
    if (format != "elf" || !planned || name_matches >= kMaxNameMatches || loaded.empty()) return;
    for (size_t i = 0; i < n;) {
      // the run [start+i, start+j) is all mapped or all unmapped
      bool in = mapped(start + i);
      uint64_t next = UINT64_MAX;  // the next segment boundary after start+i
      for (const auto& l : loaded) {
        if (l.off > start + i) next = std::min(next, l.off);
        if (l.end() > start + i) next = std::min(next, l.end());
      }
      size_t j = static_cast<size_t>(std::min<uint64_t>(n, next - start));
      if (!in) scan_run(start + i, p + i, j - i);
      i = j;
    }
  }

  // Searched where the bytes lie (memmem skips ahead; a string's find stopped at every NUL of the
  // symbol tables): only a match begun in the bytes before reads the window kept from them, which
  // holds the last kNameWindow bytes of the run at least.
  void scan_run(uint64_t start, const uint8_t* p, size_t n) {
    constexpr size_t kSpan = kShstrtabName.size() - 1;  // the most bytes of a match that lie before `start`
    if (start != unmapped_end) unmapped.clear();
    const uint64_t base = start - unmapped.size();  // `unmapped` holds [base, start)
    auto found = [&](uint64_t hit) {
      ++name_matches;
      uint64_t from = std::max(hit > kNameWindow ? hit - kNameWindow : 0, base);
      if (from < start) file.add(from, reinterpret_cast<const uint8_t*>(unmapped.data()) + (from - base), start - from);
      from = std::max(from, start);
      file.add(from, p + (from - start), start + n - from);
      uint64_t ahead = std::min(hit + kNameWindow, size);
      if (ahead > start + n) want({start + n, ahead - (start + n)});
    };
    auto search = [](const char* from, size_t len) {
      return static_cast<const char*>(memmem(from, len, kShstrtabName.data(), kShstrtabName.size()));
    };
    if (!unmapped.empty() && name_matches < kMaxNameMatches) {  // matches begun before `start`
      char joint[2 * kSpan];
      const size_t before = std::min(unmapped.size(), kSpan), after = std::min(n, kSpan);
      std::memcpy(joint, unmapped.data() + unmapped.size() - before, before);
      std::memcpy(joint + before, p, after);
      for (const char* q = joint; name_matches < kMaxNameMatches; ++q) {
        q = search(q, static_cast<size_t>(joint + before + after - q));
        if (!q || static_cast<size_t>(q - joint) >= before) break;
        found(start - before + static_cast<uint64_t>(q - joint));
      }
    }
    const char* text = reinterpret_cast<const char*>(p);
    for (const char* q = text; name_matches < kMaxNameMatches; ++q) {
      if (!(q = search(q, static_cast<size_t>(text + n - q)))) break;
      found(start + static_cast<uint64_t>(q - text));
    }
    // Keep the last kNameWindow bytes of the run for a match to come (small chunks are gathered up
    // to twice that before the front is dropped): whole chunks are not copied.
    if (n >= kNameWindow)
      unmapped.assign(text + n - kNameWindow, kNameWindow);
    else
      unmapped.append(text, n);
    if (unmapped.size() > 2 * kNameWindow) unmapped.erase(0, unmapped.size() - kNameWindow);
    unmapped_end = start + n;
  }

  void keep(uint64_t start, const uint8_t* p, size_t n) {
    if (!planned) head.until = std::max(retain_cap, kHead);  // until the plan says, keep up to the cap
    if (head.bytes.empty() && !planned) head.bytes.reserve(std::min(size, kHead + kHead / 4));
    head.keep(start, p, n);
    region.keep(start, p, n);
    uint64_t end = start + n;
    for (const auto& r : wanted) {
      uint64_t lo = std::max(r.off, start), hi = std::min(r.end(), end);
      if (lo < hi) file.add(lo, p + (lo - start), hi - lo);
    }
    uint64_t tail_from = size > kTail ? size - kTail : 0;
    if (end > tail_from && !second_pass) {
      if (tail.empty()) tail.reserve(size - tail_from);
      uint64_t from = std::max(start, tail_from);
      tail.insert(tail.end(), p + (from - start), p + n);
    }
    scan_unmapped(start, p, n);
  }

  void consume(const uint8_t* p, size_t n) {
    // In pieces of at most a MiB, so the plan is made at the same point however the caller chunks.
    for (size_t step; n > 0; p += step, n -= step)
      consume_piece(p, step = static_cast<size_t>(std::min<uint64_t>(n, kHead)));
  }

  void consume_piece(const uint8_t* p, size_t n) {
    keep(pos, p, n);
    if (scans() && !second_pass) fatbins.feed(p, n);
    pos += n;
    if (!planned && (pos >= kHead || pos >= size) && pos >= plan_wait) plan();
    if (planned && !head.released && release_after && pos >= release_after) release_retained();
  }

  // Facts from a prefix of the file only (--depth metadata): what the whole parser finds when the
  // prefix holds everything it needs, else the headers alone, marked as such.
  void parse_prefix() {
    if (!head.bytes.empty()) file.add(0, head.bytes.data(), head.bytes.size());
    BinaryFacts out;
    out.path = path;
    out.format = format;
    try {
      try {
        if (format == "elf")
          read_elf(file, out);
        else if (format == "macho")
          read_macho(file, out);
        else if (format == "pe")
          read_pe(file, out);
        else
          out.arch = "cuda", out.headers_only = true;  // a bare fatbin: its entries were not read
      } catch (const NeedRanges&) {
        if (format == "elf") {
          out = BinaryFacts{};
          out.path = path;
          out.format = format;
          read_elf_headers(file, out);
        }
        out.headers_only = true;
      }
    } catch (const NeedRanges&) {
      out.headers_only = true;  // the headers themselves lie beyond the prefix
    } catch (const ParseError& e) {
      out.errors.push_back(std::string(e.what()) + " (offset " + std::to_string(e.offset()) + ")");
    }
    facts = std::move(out);
  }

  void parse_once() {
    BinaryFacts out;
    out.path = path;
    out.format = format;
    try {
      if (format == "elf") {
        ElfLayout layout = read_elf(file, out);
        merge_fatbins(out.fatbin, select_fatbins(fatbins, layout.nv_fatbin, out.errors));
      } else if (format == "fatbin") {
        out.arch = "cuda";
        out.fatbin = select_fatbins(fatbins, ByteRange{0, size}, out.errors);
      } else if (format == "macho") {
        read_macho(file, out);
      } else if (auto nv_fatb = read_pe(file, out)) {
        out.fatbin = select_fatbins(fatbins, nv_fatb, out.errors);
      }
    } catch (const ParseError& e) {
      out.errors.push_back(std::string(e.what()) + " (offset " + std::to_string(e.offset()) + ")");
      if (format == "elf") out.fatbin = select_fatbins(fatbins, std::nullopt, out.errors);
    }
    settle_gpu_facts(out);
    facts = std::move(out);
  }
};

BinaryCapture::BinaryCapture(std::string path, uint64_t size, uint64_t retain_cap) : impl_(std::make_unique<Impl>()) {
  impl_->path = std::move(path);
  impl_->size = size;
  impl_->retain_cap = retain_cap;
}
BinaryCapture::~BinaryCapture() = default;
BinaryCapture::BinaryCapture(BinaryCapture&&) noexcept = default;
BinaryCapture& BinaryCapture::operator=(BinaryCapture&&) noexcept = default;

void BinaryCapture::data(const uint8_t* p, size_t n) {
  Impl& m = *impl_;
  if (m.sniffed && m.format.empty()) return;  // not a binary: nothing to keep
  if (!m.sniffed) {
    size_t take = std::min<size_t>(n, 64 - m.prefix.size());
    m.prefix.insert(m.prefix.end(), p, p + take);
    p += take, n -= take;
    m.sniff(false);
    if (!m.sniffed || m.format.empty()) return;
  }
  if (n) m.consume(p, n);
}

bool BinaryCapture::finish(bool complete) {
  Impl& m = *impl_;
  if (!m.sniffed) m.sniff(true);
  if (m.format.empty()) return true;
  if (!complete) {
    m.facts.path = m.path;
    m.facts.format = m.format;
    m.facts.errors.push_back("entry data could not be read to its end; not parsed");
    return true;
  }
  if (!m.tail.empty()) m.file.add(m.size - m.tail.size(), m.tail.data(), m.tail.size());
  m.missing.clear();
  bool done = m.satisfy([&] { m.parse_once(); }, true);
  if (done) return true;
  if (m.missing.empty()) {  // a parser that keeps asking without progress: report, do not loop
    m.facts.path = m.path;
    m.facts.format = m.format;
    m.facts.errors.push_back("structures still out of reach after capture");
    return true;
  }
  return false;
}

BinaryCapture BinaryCapture::second_pass() {
  Impl& m = *impl_;
  BinaryCapture next(m.path, m.size, m.retain_cap);
  Impl& n = *next.impl_;
  n.format = m.format;
  n.sniffed = true;
  n.second_pass = true;
  n.file = std::move(m.file);        // the headers found the first time locate everything now
  n.fatbins = std::move(m.fatbins);  // the tail is in `file` already
  n.plan();
  return next;
}

void BinaryCapture::finish_prefix() {
  Impl& m = *impl_;
  if (!m.sniffed) m.sniff(true);
  if (m.format.empty()) return;
  if (m.pos >= m.size && finish()) return;  // the prefix was the whole file
  m.missing.clear();
  m.parse_prefix();
}

const std::vector<ByteRange>& BinaryCapture::missing() const { return impl_->missing; }
void BinaryCapture::add(uint64_t off, const uint8_t* p, size_t n) { impl_->file.add(off, p, n); }
bool BinaryCapture::is_binary() const { return impl_->sniffed && !impl_->format.empty(); }
BinaryFacts BinaryCapture::take() {
  Impl& m = *impl_;
  if (m.facts.format.empty()) m.facts.path = m.path, m.facts.format = m.format;  // never parsed to the end
  return std::move(m.facts);
}

}  // namespace wc
