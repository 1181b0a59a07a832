#include "io/zip_index.h"

#include <algorithm>

#include "util/cursor.h"
#include "util/strings.h"

namespace wc {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEocdSig = 0x06054b50, kEocd64Sig = 0x06064b50,
                   kLocator64Sig = 0x07064b50;
constexpr size_t kEocdSize = 22, kMaxComment = 0xFFFF;

struct Eocd {
  uint64_t pos = 0, entries = 0, cd_size = 0, cd_offset = 0;
  uint16_t comment_len = 0, disk = 0, cd_disk = 0;
  bool zip64 = false;
  uint64_t record_start = 0;  // where the (ZIP64) end records begin
};

// Scans back from the end for the EOCD signature with a comment length that fits exactly; if
// none fits, takes the last signature found (trailing bytes are then reported).
bool find_eocd(Source& src, ZipIndex& idx, Eocd& e) {
  uint64_t size = src.size();
  if (size < kEocdSize) {
    idx.fatal.push_back(
        {"not a zip archive: " + std::to_string(size) + " bytes is too short for an end record", "", 0});
    return false;
  }
  uint64_t tail_len = std::min<uint64_t>(size, kEocdSize + kMaxComment);
  uint64_t tail_off = size - tail_len;
  auto tail = src.read_exact(tail_off, tail_len);
  std::optional<uint64_t> exact, any;
  for (uint64_t i = tail_len - kEocdSize + 1; i-- > 0;) {
    Cursor c(std::span<const uint8_t>(tail).subspan(i), tail_off + i);
    if (c.u32() != kEocdSig) continue;
    if (!any) any = i;
    c.seek(20);
    if (i + kEocdSize + c.u16() == tail_len) {
      exact = i;
      break;
    }
  }
  if (!any) {
    idx.fatal.push_back({"not a zip archive (no end of central directory record)", "", size});
    return false;
  }
  uint64_t i = exact ? *exact : *any;
  Cursor c(std::span<const uint8_t>(tail).subspan(i), tail_off + i);
  c.u32();
  e.pos = tail_off + i;
  e.disk = c.u16();
  e.cd_disk = c.u16();
  c.u16();
  e.entries = c.u16();
  e.cd_size = c.u32();
  e.cd_offset = c.u32();
  e.comment_len = c.u16();
  e.record_start = e.pos;
  idx.comment = std::string(c.str(std::min<uint64_t>(e.comment_len, c.remaining())));
  if (!exact)
    idx.inconsistent.push_back(
        {"end of central directory record is not at the end of the file (trailing bytes)", "", e.pos});
  return true;
}

void read_zip64_eocd(Source& src, ZipIndex& idx, Eocd& e) {
  if (e.pos < 20) return;
  auto loc = src.read_exact(e.pos - 20, 20);
  Cursor l(loc, e.pos - 20);
  if (l.u32() != kLocator64Sig) return;
  l.u32();
  uint64_t off = l.u64();
  if (off > e.pos - 20 || e.pos - 20 - off < 56) {
    idx.fatal.push_back({"ZIP64 end record offset out of range", "", e.pos - 20});
    return;
  }
  auto rec = src.read_exact(off, 56);
  Cursor r(rec, off);
  if (r.u32() != kEocd64Sig) {
    idx.fatal.push_back({"ZIP64 end record signature missing", "", off});
    return;
  }
  r.u64();
  r.u16();
  r.u16();
  e.disk = static_cast<uint16_t>(r.u32());
  e.cd_disk = static_cast<uint16_t>(r.u32());
  r.u64();
  e.entries = r.u64();
  e.cd_size = r.u64();
  e.cd_offset = r.u64();
  e.zip64 = true;
  e.record_start = off;
  idx.zip64 = true;
}

// ZIP64 extended information (header 0x0001) holds the fields whose 32-bit slot is 0xFFFFFFFF, in order.
void apply_zip64_extra(Cursor extra, ZipEntry& z, bool want_offset) {
  while (extra.remaining() >= 4) {
    uint16_t id = extra.u16(), len = extra.u16();
    Cursor body = extra.sub(extra.pos(), std::min<uint64_t>(len, extra.remaining()));
    extra.skip(std::min<uint64_t>(len, extra.remaining()));
    if (id != 0x0001) continue;
    if (z.uncompressed_size == 0xFFFFFFFF && body.remaining() >= 8) z.uncompressed_size = body.u64();
    if (z.compressed_size == 0xFFFFFFFF && body.remaining() >= 8) z.compressed_size = body.u64();
    if (want_offset && z.local_offset == 0xFFFFFFFF && body.remaining() >= 8) z.local_offset = body.u64();
  }
}

EntryKind kind_of(ZipEntry& z) {
  if (z.made_by_host == 3) {  // Unix: st_mode in the high 16 bits
    z.unix_mode = z.external_attr >> 16;
    switch (z.unix_mode & 0170000) {
      case 0120000: return EntryKind::symlink;
      case 0040000: return EntryKind::directory;
      case 0100000:
      case 0: break;
      default: return EntryKind::other;
    }
  }
  if (!z.name.empty() && z.name.back() == '/') return EntryKind::directory;
  if (z.made_by_host == 0 && (z.external_attr & 0x10)) return EntryKind::directory;
  return EntryKind::file;
}

void read_central(Source& src, ZipIndex& idx, const Eocd& e) {
  auto cd = src.read_exact(e.cd_offset, e.cd_size);
  Cursor c(cd, e.cd_offset);
  // Exactly as many as the directory can hold (46 bytes each at least): no growth by doubling,
  // and a count in a hostile end record cannot reserve more than the bytes justify.
  idx.entries.reserve(static_cast<size_t>(std::min<uint64_t>(e.entries, cd.size() / 46)));
  for (uint64_t n = 0; n < e.entries; ++n) {
    if (c.remaining() < 46 || c.u32() != kCentralSig) {
      idx.fatal.push_back({"central directory entry " + std::to_string(n) + " of " + std::to_string(e.entries) +
                               " is missing or has a bad signature",
                           "", c.offset()});
      return;
    }
    ZipEntry z;
    z.central_index = idx.entries.size();
    uint16_t made_by = c.u16();
    z.made_by_host = static_cast<uint8_t>(made_by >> 8);
    c.u16();
    z.flags = c.u16();
    z.method = c.u16();
    c.u32();
    z.crc32 = c.u32();
    z.compressed_size = c.u32();
    z.uncompressed_size = c.u32();
    uint16_t name_len = c.u16(), extra_len = c.u16(), comment_len = c.u16();
    c.u16();
    c.u16();
    z.external_attr = c.u32();
    z.local_offset = c.u32();
    z.name = std::string(c.str(name_len));
    apply_zip64_extra(c.sub(c.pos(), extra_len), z, true);
    c.skip(extra_len);
    c.skip(comment_len);
    z.kind = kind_of(z);
    idx.entries.push_back(std::move(z));
  }
  if (!c.at_end())
    idx.inconsistent.push_back(
        {"central directory has " + std::to_string(c.remaining()) + " bytes after its last entry", "", c.offset()});
}

// Local headers through a window: small entries lie close together, so one read serves many
// headers instead of two reads each.
class Window {
 public:
  explicit Window(Source& s) : src_(s) {}
  std::span<const uint8_t> get(uint64_t off, size_t n) {
    if (off < base_ || off - base_ + n > buf_.size()) {
      size_t len = static_cast<size_t>(
          std::min<uint64_t>(std::max<size_t>(n, kWindow), src_.size() - std::min(off, src_.size())));
      buf_.resize(len);
      size_t got = src_.read_at(off, buf_.data(), len);
      if (got < n)
        throw IoError(src_.display_name() + ": wanted " + std::to_string(n) + " bytes at offset " +
                      std::to_string(off) + ", file ends after " + std::to_string(off + got));
      buf_.resize(got);
      base_ = off;
    }
    return {buf_.data() + (off - base_), n};
  }

 private:
  static constexpr size_t kWindow = 32u << 10;
  Source& src_;
  uint64_t base_ = 0;
  std::vector<uint8_t> buf_;
};

void check_local(Window& src, ZipIndex& idx, ZipEntry& z) {
  auto add = [&](std::string m) { idx.inconsistent.push_back({std::move(m), z.name, z.local_offset}); };
  if (z.local_offset > idx.archive_size || idx.archive_size - z.local_offset < 30) {
    idx.fatal.push_back(
        {"local header offset " + std::to_string(z.local_offset) + " is outside the file", z.name, z.local_offset});
    return;
  }
  auto hdr = src.get(z.local_offset, 30);
  Cursor l(hdr, z.local_offset);
  if (l.u32() != kLocalSig) {
    idx.fatal.push_back({"no local file header at offset " + std::to_string(z.local_offset), z.name, z.local_offset});
    return;
  }
  l.u16();
  uint16_t flags = l.u16(), method = l.u16();
  l.u32();
  ZipEntry loc;
  loc.crc32 = l.u32();
  loc.compressed_size = l.u32();
  loc.uncompressed_size = l.u32();
  uint16_t name_len = l.u16(), extra_len = l.u16();
  uint64_t var_off = z.local_offset + 30;
  if (idx.archive_size - var_off < uint64_t(name_len) + extra_len) {
    idx.fatal.push_back({"local header name/extra run past the end of the file", z.name, z.local_offset});
    return;
  }
  auto var = src.get(var_off, name_len + extra_len);
  Cursor v(var, var_off);
  std::string_view lname = v.str(name_len);
  apply_zip64_extra(v.sub(name_len, extra_len), loc, false);
  z.data_offset = var_off + name_len + extra_len;
  if (lname != z.name) add("local header name '" + clip_for_display(lname) + "' differs from the central directory");
  if (method != z.method)
    add("local header compression method " + std::to_string(method) + " differs from the central directory's " +
        std::to_string(z.method));
  if ((flags & 0x0008) == 0) {
    if (loc.crc32 != z.crc32) add("local header CRC-32 differs from the central directory");
    if (loc.compressed_size != z.compressed_size || loc.uncompressed_size != z.uncompressed_size)
      add("local header sizes differ from the central directory");
  }
  if (z.flags & 0x0001) add("entry is encrypted");
  if (z.data_offset > idx.archive_size || idx.archive_size - z.data_offset < z.compressed_size) {
    idx.fatal.push_back({"entry data runs past the end of the file", z.name, z.data_offset});
    return;
  }
}

// Entries whose data overlaps another's (the "better zip bomb" shape) or the central directory.
void check_overlaps(ZipIndex& idx) {
  std::vector<const ZipEntry*> order;
  for (const auto& z : idx.entries) order.push_back(&z);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->local_offset < b->local_offset; });
  if (!order.empty() && order.front()->local_offset > 0)
    idx.inconsistent.push_back(
        {std::to_string(order.front()->local_offset) + " bytes of data before the first entry (prepended data)", "",
         0});
  for (size_t i = 0; i < order.size(); ++i) {
    const ZipEntry& z = *order[i];
    if (z.data_offset == 0) continue;
    uint64_t end = z.data_offset + z.compressed_size;
    uint64_t limit = i + 1 < order.size() ? order[i + 1]->local_offset : idx.central_directory_offset;
    if (end > limit)
      idx.inconsistent.push_back({i + 1 < order.size()
                                      ? "entry data overlaps the entry '" + clip_for_display(order[i + 1]->name) + "'"
                                      : "entry data overlaps the central directory",
                                  z.name, z.data_offset});
  }
}

}  // namespace

ZipIndex read_zip_index(Source& src, const std::function<bool(const ZipEntry&)>& local_wanted) {
  ZipIndex idx;
  idx.archive_size = src.size();
  try {
    Eocd e;
    if (!find_eocd(src, idx, e)) return idx;
    bool need64 = e.entries == 0xFFFF || e.cd_size == 0xFFFFFFFF || e.cd_offset == 0xFFFFFFFF;
    read_zip64_eocd(src, idx, e);
    if (!idx.fatal.empty()) return idx;
    if (need64 && !e.zip64) {
      idx.fatal.push_back({"end record needs a ZIP64 record, which is missing", "", e.pos});
      return idx;
    }
    if (e.disk != 0 || e.cd_disk != 0) {
      idx.fatal.push_back({"multi-disk (split) archives are not supported", "", e.pos});
      return idx;
    }
    if (e.cd_offset > e.record_start || e.record_start - e.cd_offset < e.cd_size) {
      idx.fatal.push_back({"central directory (offset " + std::to_string(e.cd_offset) + ", " +
                               std::to_string(e.cd_size) + " bytes) lies outside the file",
                           "", e.pos});
      return idx;
    }
    if (e.cd_offset + e.cd_size != e.record_start)
      idx.inconsistent.push_back(
          {"bytes between the central directory and the end record", "", e.cd_offset + e.cd_size});
    idx.central_directory_offset = e.cd_offset;
    read_central(src, idx, e);
    if (!idx.fatal.empty()) return idx;
    std::vector<ZipEntry*> by_offset;  // file order: neighbouring headers share a window
    for (auto& z : idx.entries)
      if (!local_wanted || local_wanted(z)) by_offset.push_back(&z);
    std::stable_sort(by_offset.begin(), by_offset.end(),
                     [](auto* a, auto* b) { return a->local_offset < b->local_offset; });
    Window window(src);
    for (auto* z : by_offset) check_local(window, idx, *z);
    for (auto& z : idx.entries) {
      if (z.method != 0 && z.method != 8)
        idx.methods.push_back({"compression method " + std::to_string(z.method) +
                                   " (only STORED and DEFLATED are portable; PyPI rejects others)",
                               z.name, z.local_offset});
    }
    check_overlaps(idx);
  } catch (const ParseError& pe) {
    idx.fatal.push_back({std::string("malformed zip structure: ") + pe.what(), "", pe.offset()});
  }
  return idx;
}

}  // namespace wc
