#include "io/zip_index.h"

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <utility>

#include "util/cursor.h"
#include "util/memory.h"
#include "util/parse.h"
#include "util/strings.h"
#include "util/view_map.h"

namespace wc {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEocdSig = 0x06054b50, kEocd64Sig = 0x06064b50,
                   kLocator64Sig = 0x07064b50, kDescriptorSig = 0x08074b50;
constexpr size_t kEocdSize = 22, kMaxComment = 0xFFFF;
constexpr uint64_t kLocalWindow = 32u << 10;  // one read of local headers (they lie close together)

struct Eocd {
  uint64_t pos = 0, entries = 0, cd_size = 0, cd_offset = 0;
  uint16_t comment_len = 0, disk = 0, cd_disk = 0;
  bool zip64 = false;
  uint64_t record_start = 0;  // where the (ZIP64) end records begin
};

// Scans back from the end for the EOCD signature with a comment length that fits exactly; if
// none fits, takes the last signature found (trailing bytes are then reported). A second end record
// that another reader could take instead (one inside the chosen record's comment, or a second that
// also fits the end of the file) makes the archive ambiguous: fatal.
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
  std::vector<uint64_t> found;  // every signature position, last first
  for (uint64_t i = tail_len - kEocdSize + 1; i-- > 0;) {
    Cursor c(std::span<const uint8_t>(tail).subspan(i), tail_off + i);
    if (c.u32() != kEocdSig) continue;
    found.push_back(i);
    if (!any) any = i;
    c.seek(20);
    if (i + kEocdSize + c.u16() == tail_len) {
      if (exact) {
        idx.fatal.push_back({"two end of central directory records fit the end of the file (offsets " +
                                 std::to_string(tail_off + i) + " and " + std::to_string(tail_off + *exact) +
                                 "): readers that scan differently see different archives",
                             "", tail_off + i});
        return false;
      }
      exact = i;
    }
  }
  if (!any) {
    idx.fatal.push_back({"not a zip archive (no end of central directory record)", "", size});
    return false;
  }
  uint64_t i = exact ? *exact : *any;
  for (uint64_t other : found)
    if (other > i) {
      idx.fatal.push_back({"a second end of central directory record at offset " + std::to_string(tail_off + other) +
                               ", inside the archive comment: readers that take the last one see another archive",
                           "", tail_off + other});
      return false;
    }
  Cursor c(std::span<const uint8_t>(tail).subspan(i), tail_off + i);
  c.u32();
  e.pos = tail_off + i;
  e.disk = c.u16();
  e.cd_disk = c.u16();
  const uint16_t on_disk = c.u16();
  e.entries = c.u16();
  if (on_disk != e.entries)
    idx.inconsistent.push_back({"the end record counts " + std::to_string(on_disk) + " entries on this disk and " +
                                    std::to_string(e.entries) +
                                    " in all (one disk: they must agree; libarchive refuses the archive)",
                                "", tail_off + i + 8});
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

// The ZIP64 end record is found through the locator just before the end record, and it must end
// exactly where that locator starts: Python's zipfile reads the record at that fixed place and
// ignores the locator's offset, so a locator pointing elsewhere (at a record hidden inside an
// entry) would show two readers two archives. Fields the end record does not saturate must agree.
void read_zip64_eocd(Source& src, ZipIndex& idx, Eocd& e) {
  if (e.pos < 20) return;
  const uint64_t loc_at = e.pos - 20;
  auto loc = src.read_exact(loc_at, 20);
  Cursor l(loc, loc_at);
  if (l.u32() != kLocator64Sig) return;
  uint32_t disk = l.u32();
  uint64_t off = l.u64();
  uint32_t disks = l.u32();
  if (disk != 0 || disks > 1) {
    idx.fatal.push_back({"multi-disk (split) archives are not supported (ZIP64 locator)", "", loc_at});
    return;
  }
  if (off > loc_at || loc_at - off < 56) {
    idx.fatal.push_back({"ZIP64 end record offset " + std::to_string(off) + " out of range", "", loc_at});
    return;
  }
  auto rec = src.read_exact(off, 56);
  Cursor r(rec, off);
  if (r.u32() != kEocd64Sig) {
    idx.fatal.push_back({"ZIP64 end record signature missing at offset " + std::to_string(off), "", off});
    return;
  }
  uint64_t rest = r.u64();  // the record's size after this field
  if (rest < 44 || rest > loc_at - off - 12 || off + 12 + rest != loc_at) {
    idx.fatal.push_back({"the ZIP64 locator names a ZIP64 end record at offset " + std::to_string(off) +
                             " that does not end where the locator starts (offset " + std::to_string(loc_at) +
                             "): readers that look just before the locator see another archive",
                         "", off});
    return;
  }
  // Version 1 of the record is 56 bytes; more is "extensible data" (APPNOTE 4.3.14), which no
  // wheel writer emits. Python's zipfile reads the 56 bytes before the locator as the record and
  // refuses the archive; PyPI rejects it (warehouse's zip64_eocd_extensible_data case).
  if (rest > 44)
    idx.inconsistent.push_back({"the ZIP64 end record carries " + std::to_string(rest - 44) +
                                    " bytes of extensible data: Python's zipfile reads the 56 bytes before the "
                                    "locator as the record and refuses the archive (PyPI rejects it too)",
                                "", off + 56});
  r.u16();
  r.u16();
  uint32_t disk64 = r.u32(), cd_disk64 = r.u32();
  const uint64_t on_disk = r.u64();
  uint64_t entries = r.u64(), cd_size = r.u64(), cd_offset = r.u64();
  if (on_disk != entries)
    idx.inconsistent.push_back({"the ZIP64 end record counts " + std::to_string(on_disk) +
                                    " entries on this disk and " + std::to_string(entries) +
                                    " in all (one disk: they must agree)",
                                "", off + 24});
  // (Some writers store the low bits of a large value instead of the saturated marker: that agrees.)
  auto disagree = [&](const char* what, uint64_t narrow, uint64_t saturated, uint64_t wide) {
    if (narrow == saturated || narrow == wide || narrow == (wide & saturated)) return false;
    idx.fatal.push_back({std::string("the end record and the ZIP64 end record disagree on the ") + what + " (" +
                             std::to_string(narrow) + " and " + std::to_string(wide) + ")",
                         "", off});
    return true;
  };
  if (disagree("entry count", e.entries, 0xFFFF, entries) ||
      disagree("central directory size", e.cd_size, 0xFFFFFFFF, cd_size) ||
      disagree("central directory offset", e.cd_offset, 0xFFFFFFFF, cd_offset))
    return;
  e.disk = disk64 > 0xFFFF ? 0xFFFF : static_cast<uint16_t>(disk64);
  e.cd_disk = cd_disk64 > 0xFFFF ? 0xFFFF : static_cast<uint16_t>(cd_disk64);
  e.entries = entries;
  e.cd_size = cd_size;
  e.cd_offset = cd_offset;
  e.zip64 = true;
  e.record_start = off;
  idx.zip64 = true;
}

// ZIP64 extended information (header 0x0001) holds the fields whose 32-bit slot is 0xFFFFFFFF, in
// order; the Info-ZIP Unicode Path field (0x7075: version 1, CRC-32 of the name, UTF-8 name) is
// kept whole, since unzip extracts by it. Returns what Python's zipfile (ZipInfo._decodeExtra)
// refuses the whole archive for, or "": a field running past the extra block, a ZIP64 field
// without a value its header saturates.
std::string apply_extras(Cursor extra, ZipEntry& z, bool want_offset) {
  std::string refused;
  while (extra.remaining() >= 4) {
    uint16_t id = extra.u16(), len = extra.u16();
    if (len > extra.remaining() && refused.empty()) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "extra field 0x%04x claims %u bytes where %zu are left", id, unsigned(len),
                    extra.remaining());
      refused = buf;
    }
    Cursor body = extra.sub(extra.pos(), std::min<uint64_t>(len, extra.remaining()));
    extra.skip(std::min<uint64_t>(len, extra.remaining()));
    if (id == 0x7075 && body.remaining() >= 5) {
      body.skip(5);
      z.unicode_path = std::string(body.str(body.remaining()));
      continue;
    }
    if (id != 0x0001) continue;
    auto take = [&](uint64_t& v, const char* what) {
      if (body.remaining() >= 8) {
        v = body.u64();
      } else if (refused.empty()) {
        refused = std::string("its ZIP64 extra field lacks the ") + what + " the header defers to it";
      }
    };
    if (z.uncompressed_size == 0xFFFFFFFF) take(z.uncompressed_size, "uncompressed size");
    if (z.compressed_size == 0xFFFFFFFF) take(z.compressed_size, "compressed size");
    if (want_offset && z.local_offset == 0xFFFFFFFF) take(z.local_offset, "local header offset");
  }
  return refused;
}

// At most this many problems of one kind are listed; the rest are counted in one more.
constexpr size_t kListed = 16;

void add_counted(std::vector<ZipProblem>& to, size_t& n, ZipProblem p) {
  if (++n <= kListed) to.push_back(std::move(p));
}

void add_overflow(std::vector<ZipProblem>& to, size_t n, const std::string& what) {
  if (n > kListed) to.push_back({std::to_string(n - kListed) + " more " + what + " not listed", "", 0});
}

// Code page 437 above 0x7f (CPython's cp437 codec; checked against it by the tests).
constexpr uint16_t kCp437High[128] = {
    0x00c7, 0x00fc, 0x00e9, 0x00e2, 0x00e4, 0x00e0, 0x00e5, 0x00e7, 0x00ea, 0x00eb, 0x00e8, 0x00ef, 0x00ee,
    0x00ec, 0x00c4, 0x00c5, 0x00c9, 0x00e6, 0x00c6, 0x00f4, 0x00f6, 0x00f2, 0x00fb, 0x00f9, 0x00ff, 0x00d6,
    0x00dc, 0x00a2, 0x00a3, 0x00a5, 0x20a7, 0x0192, 0x00e1, 0x00ed, 0x00f3, 0x00fa, 0x00f1, 0x00d1, 0x00aa,
    0x00ba, 0x00bf, 0x2310, 0x00ac, 0x00bd, 0x00bc, 0x00a1, 0x00ab, 0x00bb, 0x2591, 0x2592, 0x2593, 0x2502,
    0x2524, 0x2561, 0x2562, 0x2556, 0x2555, 0x2563, 0x2551, 0x2557, 0x255d, 0x255c, 0x255b, 0x2510, 0x2514,
    0x2534, 0x252c, 0x251c, 0x2500, 0x253c, 0x255e, 0x255f, 0x255a, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550,
    0x256c, 0x2567, 0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256b, 0x256a, 0x2518, 0x250c,
    0x2588, 0x2584, 0x258c, 0x2590, 0x2580, 0x03b1, 0x00df, 0x0393, 0x03c0, 0x03a3, 0x03c3, 0x00b5, 0x03c4,
    0x03a6, 0x0398, 0x03a9, 0x03b4, 0x221e, 0x03c6, 0x03b5, 0x2229, 0x2261, 0x00b1, 0x2265, 0x2264, 0x2320,
    0x2321, 0x00f7, 0x2248, 0x00b0, 0x2219, 0x00b7, 0x221a, 0x207f, 0x00b2, 0x25a0, 0x00a0};

// What the entry is. Python's zipfile (so pip and installer) calls an entry a directory only when
// its name ends in '/', and writes every other entry as a regular file; unzip and libarchive also
// honour the attributes. Attributes that say "directory" on a name without the slash would have
// the gate skip bytes pip installs: the entry is read as the file pip writes, and refused (WC404).
// A symlink mode (S_IFLNK in the high 16 bits) counts from any host: unzip makes symlinks of it
// for VMS, Atari, BeOS and AtheOS archives as well as Unix ones (tests/installer_test.cc asks it).
EntryKind kind_of(ZipEntry& z, std::vector<ZipProblem>& problems) {
  const uint32_t high = z.external_attr >> 16, type = high & 0170000;
  if (z.made_by_host == 3 || type == 0120000) z.unix_mode = high;
  if (type == 0120000) return EntryKind::symlink;
  if (z.made_by_host == 3 && type != 0 && type != 0100000 && type != 0040000) return EntryKind::other;
  const bool slash = !z.name.empty() && z.name.back() == '/';
  const bool unix_dir = z.made_by_host == 3 && type == 0040000, dos_dir = (z.external_attr & 0x10) != 0;
  if (slash) return EntryKind::directory;
  if (unix_dir || dos_dir) {
    char attr[64];
    std::snprintf(attr, sizeof attr, unix_dir ? "Unix mode %06o" : "DOS attributes 0x%02x",
                  unix_dir ? unsigned(high) : unsigned(z.external_attr & 0xff));
    problems.push_back({std::string("the entry's ") + attr +
                            " say directory but its name does not end in '/': zipfile and pip install it as a "
                            "file (read and checked here as one), unzip and libarchive make a directory",
                        z.name, z.local_offset});
  }
  return EntryKind::file;
}

// The general-purpose bits Python's zipfile refuses or that change how an entry's data is read,
// with what each means; the descriptor (bit 3) and UTF-8 (bit 11) bits are handled where they are
// read. Bits 1, 2 (deflate options) and the unused 7-10, 14, 15 change nothing.
constexpr std::pair<uint16_t, const char*> kDataBits[] = {
    {0x0001, "bit 0: encrypted (pip cannot read it without a password)"},
    {0x0010, "bit 4: enhanced deflating (reserved)"},
    {0x0020, "bit 5: compressed patched data (zipfile refuses it)"},
    {0x0040, "bit 6: strong encryption (zipfile refuses it)"},
    {0x1000, "bit 12: enhanced compression (reserved)"},
    {0x2000, "bit 13: masked local header values (central directory encryption)"},
};

// The bits of kDataBits and the data descriptor bit: a local header that differs from the central
// directory in any of them is read one way by streaming readers and another by zipfile.
constexpr uint16_t kReadingBits = 0x0001 | 0x0008 | 0x0010 | 0x0020 | 0x0040 | 0x1000 | 0x2000;

// Python's zipfile refuses archives whose "version needed to extract" is above this (zipfile.py
// MAX_EXTRACT_VERSION: 6.3).
constexpr uint16_t kMaxExtractVersion = 63;

// What zipfile refuses or reads otherwise in one central directory record: the version needed,
// the bits of kDataBits, a name it decodes as cp437 (no UTF-8 flag) that is not ASCII.
void check_reading_flags(ZipIndex& idx, const ZipEntry& z) {
  auto add = [&](std::string m) { idx.inconsistent.push_back({std::move(m), z.name, z.local_offset}); };
  // zipfile reads the field as two bytes, the version and a "reserved" one (where some writers put
  // the host), and compares the version alone.
  if (const unsigned v = z.version_needed & 0xff; v > kMaxExtractVersion)
    add("version needed to extract is " + std::to_string(v / 10) + "." + std::to_string(v % 10) +
        ", above the 6.3 Python's zipfile reads (it refuses the archive)");
  for (auto [bit, what] : kDataBits)
    if (z.flags & bit) add(std::string("general-purpose flag ") + what);
  if (!z.cp437_name.empty())
    idx.unsafe_names.push_back(
        {"the name is not ASCII and its UTF-8 flag (bit 11) is clear: zipfile and pip decode "
         "it as cp437, '" +
             clip_for_display(z.zipfile_name()) + "', and install it under that name",
         z.name, z.local_offset});
}

void read_central(Source& src, ZipIndex& idx, const Eocd& e) {
  size_t refusals_listed = 0;
  auto cd = src.read_exact(e.cd_offset, e.cd_size);
  Cursor c(cd, e.cd_offset);
  // Exactly as many as the directory can hold (46 bytes each at least): no growth by doubling,
  // and a count in a hostile end record cannot reserve more than the bytes justify.
  reserve_filled_once(idx.entries, static_cast<size_t>(std::min<uint64_t>(e.entries, cd.size() / 46)));
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
    z.version_needed = c.u16();
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
    if (!(z.flags & 0x0800) && !is_ascii(z.name)) z.cp437_name = cp437_to_utf8(z.name);
    std::string refused = apply_extras(c.sub(c.pos(), extra_len), z, true);
    if (!refused.empty())
      idx.inconsistent.push_back({refused + " (Python's zipfile refuses the whole archive)", z.name, z.local_offset});
    c.skip(extra_len);
    c.skip(comment_len);
    if (comment_len)
      add_counted(idx.upload_refusals, refusals_listed,
                  {"the central directory entry carries a " + std::to_string(comment_len) +
                       "-byte comment (PyPI refuses per-entry comments)",
                   z.name, z.local_offset});
    z.kind = kind_of(z, idx.inconsistent);
    check_reading_flags(idx, z);
    idx.entries.push_back(std::move(z));
  }
  if (!c.at_end())
    idx.inconsistent.push_back(
        {"central directory has " + std::to_string(c.remaining()) + " bytes after its last entry", "", c.offset()});
}

// What the rest of a partial read will touch, told to the source before it starts: the wanted
// local headers (a window's worth each, and the tar-header check's at 0) with the compressed data
// the caller will read of each.
void announce_reads(Source& src, const std::vector<ZipEntry*>& wanted,
                    const std::function<uint64_t(const ZipEntry&)>& data_wanted) {
  constexpr uint64_t kHeaderGuess = 30 + 512;  // fixed part, and room for the local extra field
  std::vector<std::pair<uint64_t, uint64_t>> plan{{0, kLocalWindow}};
  plan.reserve(wanted.size() + 1);
  for (const auto* z : wanted) {
    uint64_t data = data_wanted ? std::min(data_wanted(*z), z->compressed_size) : 0;
    uint64_t len = std::max<uint64_t>(kLocalWindow, kHeaderGuess + z->name.size() + data);
    plan.emplace_back(z->local_offset, z->local_offset + std::min(len, UINT64_MAX - z->local_offset));
  }
  src.prefetch(plan);
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
  static constexpr size_t kWindow = kLocalWindow;
  Source& src_;
  uint64_t base_ = 0;
  std::vector<uint8_t> buf_;
};

// The local header as PyPI's upload check (warehouse utils/zipfiles.py) reads it, where that
// differs from what installers accept: "" or the first thing it refuses. Its reading of a ZIP64
// extra (0x0001) is its own: the field must be 0, 8, 16, 24 or 28 bytes; 8 bytes are taken for
// both sizes (so only on a STORED entry); 16 or more set the compressed size whether or not the
// header saturated it; the sizes so read must be the central directory's. `loc` holds the local
// header's 32-bit sizes before any extra was applied.
std::string upload_refusal(Cursor extra, const ZipEntry& z, uint16_t flags, uint16_t method, const ZipEntry& loc) {
  uint64_t csize = loc.compressed_size, usize = loc.uncompressed_size;
  bool zip64_read = false, seen_zip64 = false, seen_unicode = false;
  while (!extra.at_end()) {
    if (extra.remaining() < 4)
      return "the local extra field ends in " + std::to_string(extra.remaining()) +
             " stray bytes, too few for a field header";
    uint16_t id = extra.u16(), len = extra.u16();
    if (len > extra.remaining()) return "";  // apply_extras reports the field that runs past the block
    Cursor body = extra.sub(extra.pos(), len);
    extra.skip(len);
    if (id == 0x7075 && std::exchange(seen_unicode, true))
      return "the local header holds two Info-ZIP Unicode Path extra fields";
    if (id != 0x0001) continue;
    if (std::exchange(seen_zip64, true)) return "the local header holds two ZIP64 extra fields";
    if (len != 0 && len != 8 && len != 16 && len != 24 && len != 28)
      return "the local ZIP64 extra field is " + std::to_string(len) + " bytes long, not 0, 8, 16, 24 or 28";
    if (len == 0) continue;  // saturated sizes without their values: apply_extras reports it
    zip64_read = true;
    if (len == 8) {
      if (method != 0)
        return "the local ZIP64 extra field holds 8 bytes on a compressed entry: PyPI reads them as both the "
               "compressed and the uncompressed size";
      csize = body.u64();
      if (usize == 0xFFFFFFFF) usize = csize;
    } else {
      uint64_t first = body.u64(), second = body.u64();
      if (usize == 0xFFFFFFFF) usize = first;
      csize = second;
    }
  }
  if (flags & 0x0008) return "a data descriptor follows the entry's data (flag bit 3)";
  if (zip64_read && (csize != z.compressed_size || usize != z.uncompressed_size)) {
    const bool c_asked = loc.compressed_size == 0xFFFFFFFF, u_asked = loc.uncompressed_size == 0xFFFFFFFF;
    std::string asked = c_asked && u_asked ? "both sizes"
                        : c_asked          ? "only the compressed size"
                        : u_asked          ? "only the uncompressed size"
                                           : "neither size";
    return "the local ZIP64 extra field gives the sizes " + std::to_string(csize) + " -> " + std::to_string(usize) +
           " as PyPI reads it (the header deferred " + asked + " to it), the central directory " +
           std::to_string(z.compressed_size) + " -> " + std::to_string(z.uncompressed_size);
  }
  return "";
}

// The local record of one entry: its header against the central directory, the Unicode Path
// field, the data descriptor when flag bit 3 says one follows the data. Returns where the record
// ends (header + name + extra + data + descriptor), or 0 when it could not be followed.
uint64_t check_local(Window& src, ZipIndex& idx, ZipEntry& z) {
  auto add = [&](std::string m) { idx.inconsistent.push_back({std::move(m), z.name, z.local_offset}); };
  if (z.local_offset > idx.archive_size || idx.archive_size - z.local_offset < 30) {
    idx.fatal.push_back(
        {"local header offset " + std::to_string(z.local_offset) + " is outside the file", z.name, z.local_offset});
    return 0;
  }
  auto hdr = src.get(z.local_offset, 30);
  Cursor l(hdr, z.local_offset);
  if (l.u32() != kLocalSig) {
    idx.fatal.push_back({"no local file header at offset " + std::to_string(z.local_offset), z.name, z.local_offset});
    return 0;
  }
  l.u16();
  uint16_t flags = l.u16(), method = l.u16();
  l.u32();
  ZipEntry loc;
  loc.crc32 = l.u32();
  loc.compressed_size = l.u32();
  loc.uncompressed_size = l.u32();
  const bool local_zip64 = loc.compressed_size == 0xFFFFFFFF || loc.uncompressed_size == 0xFFFFFFFF;
  uint16_t name_len = l.u16(), extra_len = l.u16();
  uint64_t var_off = z.local_offset + 30;
  if (idx.archive_size - var_off < uint64_t(name_len) + extra_len) {
    idx.fatal.push_back({"local header name/extra run past the end of the file", z.name, z.local_offset});
    return 0;
  }
  auto var = src.get(var_off, name_len + extra_len);
  Cursor v(var, var_off);
  std::string_view lname = v.str(name_len);
  const ZipEntry header = loc;  // the 32-bit sizes, before a ZIP64 extra replaces them
  if (std::string bad = apply_extras(v.sub(name_len, extra_len), loc, false); !bad.empty())
    add("local header: " + bad + " (libarchive refuses the entry)");
  if (std::string why = upload_refusal(v.sub(name_len, extra_len), z, flags, method, header); !why.empty())
    idx.upload_refusals.push_back({why + " (PyPI's upload check refuses it)", z.name, z.local_offset});
  z.data_offset = var_off + name_len + extra_len;
  if (lname != z.name) add("local header name '" + clip_for_display(lname) + "' differs from the central directory");
  if (loc.unicode_path && !z.unicode_path) z.unicode_path = loc.unicode_path;
  if (loc.unicode_path && z.unicode_path && *loc.unicode_path != *z.unicode_path)
    add("the local and central Unicode Path extra fields name different files");
  if (method != z.method)
    add("local header compression method " + std::to_string(method) + " differs from the central directory's " +
        std::to_string(z.method));
  if ((flags ^ z.flags) & kReadingBits) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "local header flags 0x%04x differ from the central directory's 0x%04x in bits that change how the "
                  "data is read (0x%04x)",
                  unsigned(flags), unsigned(z.flags), unsigned((flags ^ z.flags) & kReadingBits));
    add(buf);
  }
  if (((flags ^ z.flags) & 0x0800) && !is_ascii(z.name))
    add(std::string("the UTF-8 flag (bit 11) is ") + (z.flags & 0x0800 ? "set" : "clear") +
        " in the central directory and not in the local header: zipfile decodes the two names differently and "
        "refuses the entry");
  // With a data descriptor the local header's CRC and sizes may be zero ("not known yet"; writers
  // that stream fill in what they know, libarchive's the uncompressed size); a value that is there
  // must be the central directory's: libarchive's seekable reader reads by it.
  auto known_differs = [](uint64_t local, uint64_t central) { return local != 0 && local != central; };
  if ((flags & 0x0008) && (known_differs(loc.crc32, z.crc32) || known_differs(loc.compressed_size, z.compressed_size) ||
                           known_differs(loc.uncompressed_size, z.uncompressed_size)))
    add("the data descriptor flag is set and the local header declares CRC-32 " + std::to_string(loc.crc32) + ", " +
        std::to_string(loc.compressed_size) + " -> " + std::to_string(loc.uncompressed_size) +
        " bytes, against the central directory's " + std::to_string(z.crc32) + ", " +
        std::to_string(z.compressed_size) + " -> " + std::to_string(z.uncompressed_size) +
        ": libarchive reads by them");
  if ((flags & 0x0008) == 0) {
    if (loc.crc32 != z.crc32) add("local header CRC-32 differs from the central directory");
    if (loc.compressed_size != z.compressed_size || loc.uncompressed_size != z.uncompressed_size)
      add("local header sizes (" + std::to_string(loc.compressed_size) + " -> " +
          std::to_string(loc.uncompressed_size) + ") differ from the central directory's (" +
          std::to_string(z.compressed_size) + " -> " + std::to_string(z.uncompressed_size) + ")");
  }
  if (z.data_offset > idx.archive_size || idx.archive_size - z.data_offset < z.compressed_size) {
    idx.fatal.push_back({"entry data runs past the end of the file", z.name, z.data_offset});
    return 0;
  }
  uint64_t end = z.data_offset + z.compressed_size;
  if ((flags & 0x0008) == 0) return end;
  // Data descriptor: [signature] CRC-32, compressed size, uncompressed size, 4 bytes each or 8 for
  // the sizes in ZIP64. Writers differ on when they use 8, so each layout is tried; the one that
  // agrees with the central directory is taken, and none agreeing is an inconsistency.
  uint64_t avail = std::min<uint64_t>(idx.archive_size - end, 24);
  if (avail < 12) {
    add("the data descriptor flag is set but the file ends before a data descriptor");
    return 0;
  }
  Cursor d(src.get(end, static_cast<size_t>(avail)), end);
  const bool signed_ = d.u32() == kDescriptorSig;
  const bool prefer_wide = local_zip64 || z.compressed_size >= 0xFFFFFFFF || z.uncompressed_size >= 0xFFFFFFFF;
  std::optional<uint64_t> first_len;
  std::string seen;
  for (bool wide : {prefer_wide, !prefer_wide}) {
    uint64_t len = (signed_ ? 4 : 0) + (wide ? 20 : 12);
    if (len > avail) continue;
    d.seek(signed_ ? 4 : 0);
    uint32_t crc = d.u32();
    uint64_t csize = wide ? d.u64() : d.u32(), usize = wide ? d.u64() : d.u32();
    if (crc == z.crc32 && csize == z.compressed_size && usize == z.uncompressed_size) return end + len;
    if (!first_len) {
      first_len = len;
      seen = "CRC-32 " + std::to_string(crc) + ", " + std::to_string(csize) + " -> " + std::to_string(usize) + " bytes";
    }
  }
  add("the data descriptor (" + seen + ") differs from the central directory (CRC-32 " + std::to_string(z.crc32) +
      ", " + std::to_string(z.compressed_size) + " -> " + std::to_string(z.uncompressed_size) + " bytes)");
  return first_len ? end + *first_len : 0;
}

// Entry i of `order` (by offset) and the record after it overlap: both are marked, never to be
// inflated, and the first is reported at offset `at` (its record or its data).
void mark_overlap(ZipIndex& idx, size_t& listed, const std::vector<ZipEntry*>& order, size_t i, uint64_t at) {
  ZipEntry& z = *order[i];
  const bool last = i + 1 == order.size();
  z.overlaps = true;
  if (!last) order[i + 1]->overlaps = true;
  add_counted(idx.inconsistent, listed,
              {last ? "entry data overlaps the central directory"
                    : "entry data overlaps the entry '" + clip_for_display(order[i + 1]->name) + "'",
               z.name, at});
}

// From the central directory alone: each entry's record needs at least its fixed header, its name
// and its compressed data before the next entry's record (or the central directory) begins. An
// entry whose data reaches into another's is the overlapping zip-bomb construction (many entries
// inflating one shared compressed kernel): both are marked and never inflated.
// `order`: every entry, by local header offset.
void check_overlaps(ZipIndex& idx, const std::vector<ZipEntry*>& order) {
  size_t listed = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    ZipEntry& z = *order[i];
    uint64_t min_end = z.local_offset;
    for (uint64_t part : {uint64_t(30), uint64_t(z.name.size()), z.compressed_size})
      min_end = min_end + part < min_end ? UINT64_MAX : min_end + part;
    const bool last = i + 1 == order.size();
    uint64_t limit = last ? idx.central_directory_offset : order[i + 1]->local_offset;
    if (min_end <= limit) continue;
    mark_overlap(idx, listed, order, i, z.local_offset);
  }
  add_overflow(idx.inconsistent, listed, "overlapping entries");
}

// Once the local headers are read: the central directory alone cannot see the local extra field,
// so an entry whose data (at data_offset, compressed_size long; the size perhaps from a ZIP64
// extra) runs into the next local header or the central directory is caught here. It is the same
// overlap check_overlaps reports, and the entry is marked alike so that it is never inflated.
// (warehouse's zip64_extra_csize case: a ZIP64 extra whose compressed size is one byte long.)
void check_data_overlaps(ZipIndex& idx, const std::vector<ZipEntry*>& order) {
  size_t listed = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    ZipEntry& z = *order[i];
    if (!z.data_offset || z.overlaps) continue;
    const bool last = i + 1 == order.size();
    uint64_t limit = last ? idx.central_directory_offset : order[i + 1]->local_offset;
    // (A local name or extra field that itself runs past the limit is check_layout's to explain.)
    if (z.data_offset > limit || z.data_offset + z.compressed_size <= limit) continue;  // sizes checked
    mark_overlap(idx, listed, order, i, z.data_offset);
  }
  add_overflow(idx.inconsistent, listed, "overlapping entries (after their local headers)");
}

// Entries whose data overlaps another's and the bytes they declare (WC403 judges them).
void count_overlapping(ZipIndex& idx) {
  idx.overlapping_entries = 0;
  idx.overlapping_bytes = 0;
  for (const auto& z : idx.entries)
    if (z.overlaps) {
      ++idx.overlapping_entries;
      idx.overlapping_bytes = idx.overlapping_bytes + z.uncompressed_size < idx.overlapping_bytes
                                  ? UINT64_MAX
                                  : idx.overlapping_bytes + z.uncompressed_size;
    }
}

// The first of `sigs` (little-endian record signatures) in [from, to), read in bounded pieces.
std::pair<std::optional<uint64_t>, uint32_t> find_signature(Source& src, uint64_t from, uint64_t to,
                                                            std::initializer_list<uint32_t> sigs) {
  std::vector<uint8_t> buf;
  for (uint64_t at = from; at < to; at += 1u << 20) {
    uint64_t n = std::min<uint64_t>(to - at, (1u << 20) + 3);
    buf.resize(static_cast<size_t>(n));
    size_t got = src.read_at(at, buf.data(), buf.size());
    for (size_t k = 0; k + 4 <= got; ++k) {
      if (buf[k] != 0x50 || buf[k + 1] != 0x4b) continue;
      uint32_t v = buf[k] | buf[k + 1] << 8 | buf[k + 2] << 16 | uint32_t(buf[k + 3]) << 24;
      for (uint32_t sig : sigs)
        if (v == sig) return {at + k, sig};
    }
  }
  return {std::nullopt, 0};
}

// A STORED entry with a data descriptor has no length a streaming reader can trust: libarchive's
// streaming reader ends it at the first descriptor signature whose CRC and size fit the bytes so
// far and takes what follows for the next local record, which the seekable reader (and zipfile)
// never sees. Such an entry holding either signature is refused, naming where.
void check_stored_descriptor(Source& src, ZipIndex& idx, const ZipEntry& z) {
  if (z.method != 0 || !(z.flags & 0x0008) || !z.data_offset) return;
  auto [at, sig] = find_signature(src, z.data_offset, z.data_offset + z.compressed_size, {kLocalSig, kDescriptorSig});
  if (!at) return;
  idx.inconsistent.push_back(
      {std::string("a STORED entry with a data descriptor holds a ") +
           (sig == kLocalSig ? "local file header" : "data descriptor") + " signature at offset " +
           std::to_string(*at) +
           ": libarchive's streaming reader ends the entry there and reads what follows as another entry",
       z.name, *at});
}

// With every local record followed: each byte from the first local header to the central
// directory belongs to exactly one record. Gaps (where a local record nothing lists can hide) and
// overlaps make readers that walk local headers see another archive than readers of the directory.
// `records`: (start, end) of every local record, in file order.
void check_layout(Source& src, ZipIndex& idx, const std::vector<std::pair<uint64_t, uint64_t>>& records) {
  size_t listed = 0;
  auto gap = [&](uint64_t from, uint64_t to, const std::string& before) {
    std::optional<uint64_t> hidden = find_signature(src, from, to, {kLocalSig}).first;
    std::string what = std::to_string(to - from) + " bytes at offset " + std::to_string(from) + " " + before +
                       (hidden ? " hold a local file record (offset " + std::to_string(*hidden) +
                                     ") that the central directory does not list"
                               : " belong to no entry");
    add_counted(idx.inconsistent, listed, {what, "", from});
  };
  uint64_t at = records.empty() ? idx.central_directory_offset : records.front().first;
  for (const auto& [start, end] : records) {
    if (start > at) gap(at, start, "between entries");
    if (start < at)
      add_counted(
          idx.inconsistent, listed,
          {"the local record at offset " + std::to_string(start) + " begins inside the previous one (which ends at " +
               std::to_string(at) + "): its local name or extra field runs into the next record",
           "", start});
    at = std::max(at, end);
  }
  if (idx.central_directory_offset > at) gap(at, idx.central_directory_offset, "before the central directory");
  add_overflow(idx.inconsistent, listed, "gaps");
  idx.layout_checked = true;
}

}  // namespace

// Python's tarfile.nti on one numeric header field: base-256 (first byte 0x80 or 0xff), or octal
// text up to a NUL with blanks stripped (empty reads as 0). nullopt where tarfile raises.
static std::optional<uint64_t> tar_number(std::span<const uint8_t> b, size_t off, size_t len) {
  if (b[off] == 0x80 || b[off] == 0xff) return 0;  // base-256: any value parses
  std::string_view field(reinterpret_cast<const char*>(b.data()) + off, len);
  field = field.substr(0, field.find('\0'));
  field = trim(field);
  if (field.empty()) return 0;  // tarfile reads an empty field as 0
  return parse_octal(field, UINT64_MAX >> 3);
}

// What Python's tarfile.is_tarfile accepts as a first header: the checksum field equals the byte
// sum with that field read as spaces (unsigned or signed), and the numeric fields it reads (mode,
// uid, gid, size, mtime, device numbers) parse.
static bool tar_header(std::span<const uint8_t> b) {
  if (b.size() < 512 || b[148] == 0x80 || b[148] == 0xff) return false;
  auto want = tar_number(b, 148, 8);
  if (!want) return false;
  for (auto [off, len] : {std::pair{100, 8}, {108, 8}, {116, 8}, {124, 12}, {136, 12}, {329, 8}, {337, 8}})
    if (!tar_number(b, size_t(off), size_t(len))) return false;
  int64_t unsigned_sum = 0, signed_sum = 0;
  for (size_t i = 0; i < 512; ++i) {
    uint8_t v = (i >= 148 && i < 156) ? ' ' : b[i];
    unsigned_sum += v;
    signed_sum += static_cast<int8_t>(v);
  }
  return int64_t(*want) == unsigned_sum || int64_t(*want) == signed_sum;
}

std::string cp437_to_utf8(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() * 2);
  for (char ch : raw) {
    unsigned char b = static_cast<unsigned char>(ch);
    uint32_t cp = b < 0x80 ? b : kCp437High[b - 0x80];
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xc0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3f));
    } else {
      out += char(0xe0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3f));
      out += char(0x80 | (cp & 0x3f));
    }
  }
  return out;
}

// Two entries zipfile names alike once it has decoded them (one name cp437, the other UTF-8):
// pip installs one entry's bytes under the name RECORD verified for the other.
static void check_decoded_duplicates(ZipIndex& idx) {
  // Names zipfile reads as they are (UTF-8 flagged, or ASCII) clash in the duplicate-name check:
  // with none decoded otherwise, there is nothing to look up.
  if (std::all_of(idx.entries.begin(), idx.entries.end(), [](const ZipEntry& z) { return z.cp437_name.empty(); }))
    return;
  ViewMap<const ZipEntry*> by_raw(idx.entries.size()), by_decoded;
  for (const auto& z : idx.entries) by_raw.try_emplace(z.name, &z);
  for (const auto& z : idx.entries) {
    if (z.cp437_name.empty()) continue;
    const ZipEntry* const* other = by_raw.find(z.zipfile_name());
    const ZipEntry* dup = other ? *other : nullptr;
    if (!dup) {
      auto [first, fresh] = by_decoded.try_emplace(z.zipfile_name(), &z);
      if (fresh) continue;
      dup = *first;
    }
    idx.unsafe_names.push_back({"zipfile decodes this name to '" + clip_for_display(z.zipfile_name()) +
                                    "', the name it gives the entry '" + clip_for_display(dup->name) +
                                    "' too: pip installs one entry's bytes under the other's name",
                                z.name, z.local_offset});
  }
}

std::optional<uint64_t> local_data_offset(Source& src, const ZipEntry& z) {
  uint8_t h[30];
  if (z.local_offset > src.size() || src.size() - z.local_offset < sizeof h ||
      src.read_at(z.local_offset, h, sizeof h) != sizeof h)
    return std::nullopt;
  Cursor l(h, sizeof h, z.local_offset);
  if (l.u32() != kLocalSig) return std::nullopt;
  l.skip(22);  // versions, flags, method, time, date, CRC-32, sizes: the walk compares those
  const uint64_t name_len = l.u16(), extra_len = l.u16();
  return z.local_offset + sizeof h + name_len + extra_len;
}

ZipIndex read_zip_index(Source& src, const std::function<bool(const ZipEntry&)>& local_wanted,
                        const std::function<uint64_t(const ZipEntry&)>& data_wanted) {
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
    if (e.cd_offset + e.cd_size != e.record_start) {
      // Python's zipfile trusts the sizes and shifts every offset by the difference; readers that
      // trust the offsets read another directory.
      idx.fatal.push_back({"the central directory (offset " + std::to_string(e.cd_offset) + ", " +
                               std::to_string(e.cd_size) + " bytes) does not end where the end record starts (offset " +
                               std::to_string(e.record_start) + "): readers disagree on where it is",
                           "", e.cd_offset + e.cd_size});
      return idx;
    }
    idx.central_directory_offset = e.cd_offset;
    read_central(src, idx, e);
    if (!idx.fatal.empty()) return idx;
    check_decoded_duplicates(idx);
    // Every entry in file order, sorted once: the overlap and layout checks walk it, and the local
    // headers are read along it (neighbouring headers share a window).
    std::vector<ZipEntry*> order;
    order.reserve(idx.entries.size());
    for (auto& z : idx.entries) order.push_back(&z);
    auto offset_order = [](auto* a, auto* b) { return a->local_offset < b->local_offset; };
    if (!std::is_sorted(order.begin(), order.end(), offset_order))  // as writers lay them out: nothing to sort
      std::stable_sort(order.begin(), order.end(), offset_order);
    uint64_t first = order.empty() ? idx.central_directory_offset
                                   : std::min(order.front()->local_offset, idx.central_directory_offset);
    if (first > 0)
      idx.inconsistent.push_back(
          {std::to_string(first) + " bytes of data before the first entry (prepended data)", "", 0});
    check_overlaps(idx, order);
    count_overlapping(idx);
    std::vector<ZipEntry*> by_offset;
    by_offset.reserve(local_wanted ? 0 : order.size());
    for (auto* z : order)
      if (!local_wanted || local_wanted(*z)) by_offset.push_back(z);
    if (local_wanted) announce_reads(src, by_offset, data_wanted);
    Window window(src);
    if (src.size() >= 512 && tar_header(window.get(0, 512)))
      idx.inconsistent.push_back(
          {"the file is also a tar archive: its first 512 bytes are a tar header with a valid "
           "checksum (offset 148), so tar readers see other contents (a zip polyglot; PyPI "
           "rejects such uploads)",
           "", 148});
    std::vector<std::pair<uint64_t, uint64_t>> records;
    records.reserve(by_offset.size());
    bool followed = true;
    for (auto* z : by_offset) {
      uint64_t end = check_local(window, idx, *z);
      if (end) check_stored_descriptor(src, idx, *z);
      if (end)
        records.emplace_back(z->local_offset, end);
      else
        followed = false;
      if (!idx.fatal.empty()) return idx;
    }
    check_data_overlaps(idx, order);
    count_overlapping(idx);
    for (auto& z : idx.entries) {
      if (z.method != 0 && z.method != 8)
        idx.methods.push_back({"compression method " + std::to_string(z.method) +
                                   " (only STORED and DEFLATED are portable; PyPI rejects others)",
                               z.name, z.local_offset});
      if (z.unicode_path && *z.unicode_path != z.name)
        idx.unsafe_names.push_back({"an Info-ZIP Unicode Path extra field names '" + clip_for_display(*z.unicode_path) +
                                        "' (unzip extracts the entry there; installers use the name)",
                                    z.name, z.local_offset});
    }
    if (followed && by_offset.size() == idx.entries.size() && idx.overlapping_entries == 0)
      check_layout(src, idx, records);
  } catch (const ParseError& pe) {
    idx.fatal.push_back({std::string("malformed zip structure: ") + pe.what(), "", pe.offset()});
  }
  return idx;
}

}  // namespace wc
