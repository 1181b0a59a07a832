#include "binary/fatbin.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <set>

#include "util/budget.h"
#include "util/byte_scan.h"
#include "util/cursor.h"
#include "util/parse.h"

namespace wc {
namespace {
constexpr uint32_t kContainerMagic = 0xBA55ED50;
constexpr uint8_t kContainerMagicBytes[4] = {0x50, 0xED, 0x55, 0xBA};  // as the file holds it
constexpr size_t kContainerHeader = 16, kEntryHeader = 64;
// Uncompressed payloads keep their first bytes: the cubin ELF header (e_flags) and nvcc's toolkit
// note (cubins: .note.nv.tkinfo; PTX: the "// Cuda compilation tools" header comment).
constexpr size_t kPayloadHead = 8192;
// A compressed entry's declared decompressed size above this (or above 4096 times its payload) is
// not a GPU image: the largest real cubins are a few hundred MB and compress under 20:1.
constexpr uint64_t kMaxDecompressed = 4ull << 30;
// Entry kinds beside PTX (1) and SASS (2): LTO-IR (8), what nvcc -dlto embeds (cudf's shim.fatbin).
constexpr uint16_t kKindLtoIr = 8;
constexpr uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000, kFlagArchSpecific = 0x100000, kFlagFamily = 0x200000;
}  // namespace

std::string FatbinEntry::name() const { return (kind == ptx ? "compute_" : "sm_") + std::to_string(sm) + suffix; }

void FatbinScanner::feed(const uint8_t* p, size_t n) {
  size_t i = 0;
  while (i < n) {
    switch (state_) {
      case State::scan: {
        // Bulk path: the magic where all four bytes lie in this chunk (find_four_bytes); the
        // first and last three bytes of a chunk go byte by byte, so a magic split across chunks
        // is still seen.
        if (i >= 3 && n - i >= 4) {
          // Bytes just taken one at a time may begin a magic that ends here: look back at them.
          size_t from = i - std::min<size_t>(window_len_, 3);
          size_t k = from + find_four_bytes(p + from, n - from, kContainerMagicBytes);
          const bool hit = k < n;
          if (!hit) k = n - 3;  // where a magic ending in the next chunk could begin
          pos_ = pos_ + k - i;  // k may lie up to three bytes before i
          i = k;
          window_len_ = 0;
          if (hit) {
            i += 4, pos_ += 4;
            acc_.assign(std::begin(kContainerMagicBytes), std::end(kContainerMagicBytes));
            need_ = kContainerHeader;
            state_ = State::container_header;
          }
          break;
        }
        window_ = (window_ >> 8) | (uint32_t(p[i]) << 24);
        ++window_len_;
        ++i, ++pos_;
        if (window_len_ >= 4 && window_ == kContainerMagic) {
          acc_.assign(std::begin(kContainerMagicBytes), std::end(kContainerMagicBytes));
          need_ = kContainerHeader;
          state_ = State::container_header;
        }
        break;
      }
      case State::container_header:
      case State::entry_header: {
        size_t take = std::min(need_ - acc_.size(), n - i);
        acc_.insert(acc_.end(), p + i, p + i + take);
        i += take, pos_ += take;
        if (acc_.size() == need_) state_ == State::container_header ? on_container_header() : on_entry_header();
        break;
      }
      case State::entry_skip: {
        uint64_t take = std::min<uint64_t>(skip_left_, n - i);
        i += take, pos_ += take, skip_left_ -= take;
        if (skip_left_ == 0) {
          payload_head_.clear();
          state_ = State::payload;
          if (payload_left_ == 0) start_entry_or_end();
        }
        break;
      }
      case State::payload: {
        uint64_t take = std::min<uint64_t>(payload_left_, n - i);
        payload_byte_run(p + i, take);
        i += take, pos_ += take, payload_left_ -= take;
        if (payload_left_ == 0) start_entry_or_end();
        break;
      }
    }
  }
}

void FatbinScanner::on_container_header() {
  Cursor c(acc_);
  c.u32();
  uint16_t version = c.u16(), header_size = c.u16();
  uint64_t fat_size = c.u64();
  uint64_t start = pos_ - kContainerHeader;
  // A real header: version 1, 16-byte header, non-empty body. Anything else was a chance match.
  if (version != 1 || header_size != kContainerHeader || fat_size == 0 || fat_size > (1ull << 40)) {
    state_ = State::scan;
    window_len_ = 0;
    return;
  }
  containers.push_back({start, kContainerHeader + fat_size, entries.size(), 0, ""});
  container_end_ = pos_ + fat_size;
  start_entry_or_end();
}

void FatbinScanner::start_entry_or_end() {
  if (!containers.empty() && pos_ < container_end_) {
    acc_.clear();
    need_ = kEntryHeader;
    state_ = State::entry_header;
    if (container_end_ - pos_ < kEntryHeader) {
      containers.back().error = "container ends inside an entry header";
      skip_left_ = container_end_ - pos_;
      payload_left_ = 0;
      state_ = State::entry_skip;
      container_end_ = pos_;  // nothing follows in this container
    }
    return;
  }
  state_ = State::scan;
  window_len_ = 0;
}

void FatbinScanner::on_entry_header() {
  Cursor c(acc_);
  FatbinEntry e;
  e.offset = pos_ - kEntryHeader;
  uint16_t kind = c.u16();
  c.u16();
  uint32_t header_size = c.u32();
  e.payload_size = c.u64();
  uint32_t compressed = c.u32();
  c.u32();
  e.version_minor = c.u16();
  e.version_major = c.u16();
  e.sm = c.u32();
  c.u32();
  c.u32();
  e.flags = c.u64();
  c.u64();
  e.uncompressed_size = c.u64();
  FatbinContainer& box = containers.back();
  uint64_t left = container_end_ - e.offset;
  std::string bad;
  if (kind != FatbinEntry::ptx && kind != FatbinEntry::sass && kind != kKindLtoIr)
    bad = "unknown entry kind " + std::to_string(kind);
  else if (header_size < kEntryHeader || header_size > 4096)
    bad = "entry header size " + std::to_string(header_size) + " out of range";
  else if (e.payload_size > left || header_size > left - e.payload_size)
    bad = "entry runs past its container";
  else if ((e.flags & (kFlagZstd | kFlagLz4)) &&
           (e.uncompressed_size > kMaxDecompressed || e.uncompressed_size / 4096 > e.payload_size))
    bad = "entry claims " + std::to_string(e.uncompressed_size) + " decompressed bytes from " +
          std::to_string(e.payload_size) + " (no GPU image is that large or compresses that well)";
  if (!bad.empty()) {
    box.error = bad + " (entry at offset " + std::to_string(e.offset) + ")";
    skip_left_ = container_end_ - pos_;
    payload_left_ = 0;
    container_end_ = pos_;  // the rest of this container is skipped
    state_ = State::entry_skip;
    return;
  }
  if (kind == kKindLtoIr) {  // LTO-IR for link-time optimisation: no code a GPU runs; skipped whole
    skip_left_ = header_size - kEntryHeader + e.payload_size;
    payload_left_ = 0;
    state_ = State::entry_skip;
    if (skip_left_ == 0) start_entry_or_end();
    return;
  }
  e.kind = static_cast<FatbinEntry::Kind>(kind);
  e.suffix = e.flags & kFlagArchSpecific ? "a" : e.flags & kFlagFamily ? "f" : "";
  e.compression = e.flags & kFlagZstd ? "zstd" : e.flags & kFlagLz4 ? "lz4" : "none";
  if (e.compression != "none" && compressed)
    e.uncompressed_size = e.uncompressed_size ? e.uncompressed_size : compressed;
  if (e.compression == "none") e.uncompressed_size = e.payload_size;
  // Held while scanning, then selected and merged into the binary's facts: about three copies.
  charge_memory(3 * sizeof(FatbinEntry), "fatbin entries");
  entries.push_back(e);
  ++box.entry_count;
  skip_left_ = header_size - kEntryHeader;
  payload_left_ = e.payload_size;
  state_ = State::entry_skip;
  if (skip_left_ == 0) {
    payload_head_.clear();
    state_ = State::payload;
    if (payload_left_ == 0) start_entry_or_end();
  }
}

// Keeps the first bytes of an uncompressed payload: a cubin's e_flags name its SM, and both cubins
// and PTX name the toolkit that produced them.
void FatbinScanner::payload_byte_run(const uint8_t* p, size_t n) {
  FatbinEntry& e = entries.back();
  if (e.compression != "none" || payload_head_.size() >= kPayloadHead) return;
  size_t take = std::min(n, kPayloadHead - payload_head_.size());
  payload_head_.insert(payload_head_.end(), p, p + take);
  bool head_complete = payload_head_.size() == kPayloadHead || payload_head_.size() == e.payload_size;
  if (!head_complete) return;
  e.toolkit = toolkit_release({reinterpret_cast<const char*>(payload_head_.data()), payload_head_.size()});
  if (e.kind != FatbinEntry::sass || payload_head_.size() < 52 ||
      std::memcmp(payload_head_.data(),
                  "\x7f"
                  "ELF",
                  4) != 0)
    return;
  Cursor c(payload_head_);
  bool is64 = payload_head_[4] == 2;
  uint8_t abiversion = payload_head_[8];
  c.seek(is64 ? 48 : 36);
  uint32_t eflags = c.u32();
  // EI_ABIVERSION 7: SM in the low byte; 8 (CUDA 12.8+ cubins): SM in bits 8..15.
  e.cubin_sm = abiversion >= 8 ? (eflags >> 8) & 0xff : eflags & 0xff;
  if (payload_head_.size() == e.payload_size && is64) e.has_kernels = cubin_has_kernels(payload_head_);
}

// Whether a whole cubin holds code: a .text.<kernel> section. nvcc also emits cubins with no
// kernels at all (an empty module beside the real one); they need no image on any GPU.
std::optional<bool> cubin_has_kernels(const std::vector<uint8_t>& cubin) {
  try {
    Cursor h(cubin);
    h.seek(40);
    uint64_t shoff = h.u64();
    h.seek(58);
    uint16_t shentsize = h.u16(), shnum = h.u16(), shstrndx = h.u16();
    if (shentsize < 64 || shstrndx >= shnum) return std::nullopt;
    Cursor names_hdr = h.sub(checked_add(shoff, uint64_t(shstrndx) * shentsize), 64);
    names_hdr.seek(24);
    uint64_t names_off = names_hdr.u64(), names_size = names_hdr.u64();
    Cursor names = h.sub(names_off, names_size);
    for (uint16_t i = 0; i < shnum; ++i) {
      Cursor sh = h.sub(checked_add(shoff, uint64_t(i) * shentsize), 64);
      uint32_t name = sh.u32();
      if (name < names.size() && names.cstr_at(name).starts_with(".text.")) return true;
    }
    return false;
  } catch (const ParseError&) {
    return std::nullopt;
  }
}

std::string toolkit_release(std::string_view text) {
  static constexpr std::string_view marker = "Cuda compilation tools, release ";
  std::string best;
  for (size_t p = text.find(marker); p != std::string_view::npos; p = text.find(marker, p + 1)) {
    size_t start = p + marker.size(), end = start;
    while (end < text.size() && (is_digit(text[end]) || text[end] == '.')) ++end;
    std::string v(text.substr(start, end - start));
    if (!v.empty() && v.back() != '.' && (best.empty() || compare_dotted(v, best) > 0)) best = v;
  }
  return best;
}

std::string FatbinFacts::newest_toolkit() const {
  std::string best;
  for (const auto& e : entries)
    if (!e.toolkit.empty() && (best.empty() || compare_dotted(e.toolkit, best) > 0)) best = e.toolkit;
  return best;
}

void merge_fatbins(FatbinFacts& into, FatbinFacts&& more) {
  if (into.empty() && into.container_ranges.empty()) {
    into = std::move(more);  // no copy of a million entries
    return;
  }
  merge_fatbins(into, static_cast<const FatbinFacts&>(more));
}

void merge_fatbins(FatbinFacts& into, const FatbinFacts& more) {
  size_t base = into.container_ranges.size();
  into.entries.reserve(into.entries.size() + more.entries.size());
  into.containers += more.containers;
  into.container_ranges.insert(into.container_ranges.end(), more.container_ranges.begin(), more.container_ranges.end());
  for (auto e : more.entries) {
    e.container += base;
    into.entries.push_back(std::move(e));
  }
}

FatbinFacts select_fatbins(const FatbinScanner& s, const std::optional<ByteRange>& range,
                           std::vector<std::string>& errors) {
  FatbinFacts out;
  out.entries.reserve(s.entries.size());  // at most these: one allocation, not doubling
  for (const auto& box : s.containers) {
    bool inside = range && box.offset >= range->off && box.offset < range->end();
    if (range && !inside) continue;
    if (!box.error.empty()) {
      if (inside) errors.push_back("fatbin container at offset " + std::to_string(box.offset) + ": " + box.error);
      if (!range) continue;
    }
    if (range && box.offset + box.size > range->end())
      errors.push_back("fatbin container at offset " + std::to_string(box.offset) + " runs past the end of .nv_fatbin");
    ++out.containers;
    out.container_ranges.emplace_back(box.offset, box.size);
    for (size_t k = 0; k < box.entry_count; ++k) {
      FatbinEntry e = s.entries[box.first_entry + k];
      e.container = out.container_ranges.size() - 1;
      if (e.cubin_sm && *e.cubin_sm != e.sm)
        errors.push_back("fatbin entry at offset " + std::to_string(e.offset) + " says sm_" + std::to_string(e.sm) +
                         " but its cubin was built for sm_" + std::to_string(*e.cubin_sm));
      out.entries.push_back(std::move(e));
    }
  }
  out.entries.shrink_to_fit();
  if (range && out.containers == 0 && range->len > 0)
    errors.push_back(".nv_fatbin section holds no readable fatbin container");
  return out;
}

}  // namespace wc
