#include "support/raw_zip.h"

#include <zlib.h>

#include <stdexcept>

#include "wheel_builder.h"

namespace wc::testing {

RawEntry raw_file(std::string name, std::string content, bool deflate) {
  RawEntry e;
  e.name = std::move(name);
  e.content = std::move(content);
  e.deflate = deflate;
  e.finish();
  return e;
}

std::string le16(uint16_t v) { return {char(v & 0xff), char(v >> 8)}; }
std::string le32(uint32_t v) { return le16(uint16_t(v & 0xffff)) + le16(uint16_t(v >> 16)); }
std::string le64(uint64_t v) { return le32(uint32_t(v & 0xffffffff)) + le32(uint32_t(v >> 32)); }

std::string raw_deflate(const std::string& in) {
  z_stream z{};
  if (deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error("deflateInit2");
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate");
  out.resize(z.total_out);
  return out;
}

uint32_t crc32_of(const std::string& s) {
  return static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size())));
}
uint32_t crc32_combine_of(uint32_t a, uint32_t b, uint64_t len_b) {
  return static_cast<uint32_t>(crc32_combine(a, b, static_cast<z_off_t>(len_b)));
}

RawEntry& RawEntry::finish() {
  data = deflate ? raw_deflate(content) : content;
  crc = crc32_of(content);
  csize = data.size();
  usize = content.size();
  return *this;
}

std::string local_header(const RawEntry& e) {
  bool descr = e.descriptor;
  return le32(0x04034b50) + le16(e.version_needed) + le16(uint16_t(((descr ? 8 : 0) | e.flags) ^ e.local_flags_xor)) +
         le16(e.deflate ? 8 : 0) + le32(0) + le32(descr ? 0 : e.crc) + le32(descr ? 0 : uint32_t(e.csize)) +
         le32(descr ? 0 : uint32_t(e.usize)) + le16(uint16_t(e.name.size())) + le16(uint16_t(e.local_extra.size())) +
         e.name + e.local_extra;
}

std::string data_descriptor(uint32_t crc, uint64_t csize, uint64_t usize, bool signature) {
  return (signature ? le32(0x08074b50) : "") + le32(crc) + le32(uint32_t(csize)) + le32(uint32_t(usize));
}

std::string local_record(const RawEntry& e) {
  return local_header(e) + e.data + (e.descriptor ? data_descriptor(e.crc, e.csize, e.usize) : "");
}

std::string central_record(const RawEntry& e, uint64_t local_offset) {
  return le32(0x02014b50) + le16(e.made_by) + le16(e.version_needed) +
         le16(uint16_t((e.descriptor ? 8 : 0) | e.flags)) + le16(e.deflate ? 8 : 0) + le32(0) + le32(e.crc) +
         le32(uint32_t(e.csize)) + le32(uint32_t(e.usize)) + le16(uint16_t(e.name.size())) +
         le16(uint16_t(e.central_extra.size())) + le16(uint16_t(e.central_comment.size())) + le16(0) + le16(0) +
         le32(e.unix_mode << 16 | e.dos_attr) + le32(uint32_t(local_offset)) + e.name + e.central_extra +
         e.central_comment;
}

std::string end_record(uint64_t entries, uint64_t cd_size, uint64_t cd_offset, const std::string& comment) {
  auto n16 = [](uint64_t v) { return uint16_t(v > 0xFFFF ? 0xFFFF : v); };
  auto n32 = [](uint64_t v) { return uint32_t(v > 0xFFFFFFFF ? 0xFFFFFFFF : v); };
  return le32(0x06054b50) + le16(0) + le16(0) + le16(n16(entries)) + le16(n16(entries)) + le32(n32(cd_size)) +
         le32(n32(cd_offset)) + le16(uint16_t(comment.size())) + comment;
}

std::string zip64_end_record(uint64_t entries, uint64_t cd_size, uint64_t cd_offset) {
  return le32(0x06064b50) + le64(44) + le16(45) + le16(45) + le32(0) + le32(0) + le64(entries) + le64(entries) +
         le64(cd_size) + le64(cd_offset);
}

std::string zip64_locator(uint64_t record_offset) { return le32(0x07064b50) + le32(0) + le64(record_offset) + le32(1); }

std::string unicode_path_extra(const std::string& name, const std::string& path) {
  return le16(0x7075) + le16(uint16_t(5 + path.size())) + std::string(1, '\1') + le32(crc32_of(name)) + path;
}

std::string raw_zip(std::vector<RawEntry> entries, const std::string& comment) {
  std::string out, cd;
  for (auto& e : entries) {
    if (e.data.empty() && !e.content.empty()) e.finish();
    cd += central_record(e, out.size());
    out += local_record(e);
  }
  uint64_t cd_offset = out.size();
  return out + cd + end_record(entries.size(), cd.size(), cd_offset, comment);
}

std::vector<RawEntry> raw_wheel_entries(const std::string& name, const std::vector<RawEntry>& files,
                                        const std::string& tag) {
  std::vector<RawEntry> all = files;
  const std::string di = name + "-1.0.dist-info/";
  const bool pure = tag.ends_with("-any");
  all.push_back(raw_file(di + "WHEEL", "Wheel-Version: 1.0\nGenerator: raw\nRoot-Is-Purelib: " +
                                           std::string(pure ? "true" : "false") + "\nTag: " + tag + "\n"));
  all.push_back(raw_file(di + "METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: 1.0\n"));
  std::string record;
  for (auto& e : all) {
    if (e.data.empty() && !e.content.empty()) e.finish();
    record += csv_field(e.name) + "," + sha256_record(e.content) + "," + std::to_string(e.content.size()) + "\n";
  }
  record += di + "RECORD,,\n";
  all.push_back(raw_file(di + "RECORD", record));
  return all;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

// Entries written in order, with the local records' bytes returned separately so a test can splice.
Laid lay_out(const std::vector<RawEntry>& entries, uint64_t base) {
  Laid l;
  for (const auto& e : entries) {
    l.offsets.push_back(base + l.locals.size());
    l.central += central_record(e, base + l.locals.size());
    l.locals += local_record(e);
  }
  return l;
}

// The ZIP64 attack (issue 16): a stored entry hides a second set of local records, a central directory and a
// ZIP64 end record; the real archive's ZIP64 locator points at the hidden record.
std::string hidden_zip64_wheel() {
  auto benign = raw_wheel_entries("h", {raw_file("h/__init__.py", "x = 1\n")});
  auto evil = raw_wheel_entries("h", {raw_file("h/__init__.py", "import os; os.system('echo owned')\n")});
  // The carrier entry's content is the hidden archive; its offsets must be absolute, so the carrier
  // goes first and the hidden records start after its local header.
  RawEntry carrier = raw_file("h/blob.bin", "");
  const uint64_t hidden_base = local_header(carrier).size();
  Laid hidden = lay_out(evil, hidden_base);
  uint64_t hidden_cd = hidden_base + hidden.locals.size();
  std::string hidden_rec = zip64_end_record(evil.size(), hidden.central.size(), hidden_cd);
  uint64_t hidden_rec_at = hidden_cd + hidden.central.size();
  carrier = raw_file("h/blob.bin", hidden.locals + hidden.central + hidden_rec);
  std::vector<RawEntry> all = {carrier};
  all.insert(all.end(), benign.begin(), benign.end());
  Laid real = lay_out(all);
  uint64_t cd = real.locals.size();
  std::string rec = zip64_end_record(all.size(), real.central.size(), cd);
  return real.locals + real.central + rec + zip64_locator(hidden_rec_at) + end_record(0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF);
}

std::string descriptor_wheel(bool lie) {
  auto entries = raw_wheel_entries("d", {raw_file("d/__init__.py", "x = 1\n")});
  entries[0].descriptor = true;
  std::string locals, central;
  for (const auto& e : entries) {
    central += central_record(e, locals.size());
    if (e.descriptor && lie)
      locals += local_header(e) + e.data + data_descriptor(e.crc ^ 1, e.csize, e.usize + 1);
    else
      locals += local_record(e);
  }
  return locals + central + end_record(entries.size(), central.size(), locals.size());
}

// Fifield's overlapping construction: each entry's deflate stream starts with a stored block that
// quotes the next entry's local header, then runs on into that entry's data; the last one holds
// the shared kernel. `n` entries of `kernel_bytes` zeros each.
std::string overlapping_bomb(int n, size_t kernel_bytes) {
  std::string zeros(kernel_bytes, '\0');
  std::string kernel = raw_deflate(zeros);  // one final block
  const uint32_t kernel_crc = crc32_of(zeros);
  std::vector<RawEntry> e(n);
  std::vector<std::string> headers(n);
  // Build from the last entry back: entry i's compressed data = quote(header i+1) + data i+1.
  std::string data = kernel;
  uint32_t crc = kernel_crc;
  uint64_t usize = kernel_bytes;
  for (int i = n - 1; i >= 0; --i) {
    e[i].name = "b/" + std::to_string(i) + ".bin";
    e[i].deflate = true;
    e[i].data = data;
    e[i].crc = crc;
    e[i].csize = data.size();
    e[i].usize = usize;
    headers[i] = local_header(e[i]);
    // A non-final stored block holding header i: 0x00, LEN, ~LEN.
    uint16_t len = static_cast<uint16_t>(headers[i].size());
    std::string quote = std::string(1, '\0') + le16(len) + le16(static_cast<uint16_t>(~len)) + headers[i];
    crc = crc32_combine_of(crc32_of(headers[i]), crc, usize);
    usize += headers[i].size();
    data = quote + data;
  }
  std::string locals, central;
  for (int i = 0; i < n; ++i) {
    central += central_record(e[i], locals.size());
    locals += headers[i];
  }
  locals += kernel;
  return locals + central + end_record(n, central.size(), locals.size());
}

}  // namespace wc::testing
