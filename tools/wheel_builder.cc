#include "wheel_builder.h"

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "util/digest.h"
#include "wheel/filename.h"

namespace wc::testing {

namespace {

la_ssize_t append(struct archive*, void* ud, const void* buf, size_t n) {
  auto* out = static_cast<std::vector<uint8_t>*>(ud);
  out->insert(out->end(), static_cast<const uint8_t*>(buf), static_cast<const uint8_t*>(buf) + n);
  return static_cast<la_ssize_t>(n);
}

void check(struct archive* a, int rc, const char* what) {
  if (rc < ARCHIVE_WARN) throw std::runtime_error(std::string(what) + ": " + archive_error_string(a));
}

std::vector<std::string> expand(const std::string& tag) {
  auto parts = [](const std::string& s, char sep) {
    std::vector<std::string> v;
    size_t start = 0;
    for (size_t p; (p = s.find(sep, start)) != std::string::npos; start = p + 1)
      v.push_back(s.substr(start, p - start));
    v.push_back(s.substr(start));
    return v;
  };
  auto t = parts(tag, '-');
  std::vector<std::string> out;
  if (t.size() != 3) return {tag};
  for (const auto& py : parts(t[0], '.'))
    for (const auto& abi : parts(t[1], '.'))
      for (const auto& plat : parts(t[2], '.')) out.push_back(py + "-" + abi + "-" + plat);
  return out;
}

uint32_t get32(const std::vector<uint8_t>& b, size_t at) {
  if (at + 4 > b.size()) throw std::runtime_error("seal: zip record runs past the end");
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
uint16_t get16(const std::vector<uint8_t>& b, size_t at) {
  if (at + 2 > b.size()) throw std::runtime_error("seal: zip record runs past the end");
  return uint16_t(b[at] | b[at + 1] << 8);
}
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) { b[at] = uint8_t(v), b[at + 1] = uint8_t(v >> 8); }

// libarchive writes zips as a stream: each local header says "sizes follow" (flag bit 3) and a
// data descriptor trails the data. Wheels from build backends are written seekably, with the CRC
// and sizes in the local header and no descriptor, and PyPI refuses descriptors (WC406): this
// rewrites the archive that way, taking the values from the central directory.
std::vector<uint8_t> seal(const std::vector<uint8_t>& in) {
  if (in.size() < 22 || get32(in, in.size() - 22) != 0x06054b50) throw std::runtime_error("seal: no end record");
  const size_t eocd = in.size() - 22;
  const uint16_t count = get16(in, eocd + 10);
  const size_t cd = get32(in, eocd + 16);
  std::vector<uint8_t> locals, central(in.begin() + static_cast<long>(cd), in.begin() + static_cast<long>(eocd));
  for (size_t i = 0, c = 0; i < count; ++i) {
    const uint16_t flags = get16(central, c + 8), n = get16(central, c + 28), m = get16(central, c + 30),
                   k = get16(central, c + 32);
    const uint32_t csize = get32(central, c + 20), local = get32(central, c + 42);
    if (csize == 0xFFFFFFFF || local == 0xFFFFFFFF) throw std::runtime_error("seal: ZIP64 entries are not rewritten");
    const size_t lhead = 30 + get16(in, local + 26) + get16(in, local + 28);
    std::vector<uint8_t> rec(in.begin() + local, in.begin() + static_cast<long>(local + lhead + csize));
    put16(rec, 6, uint16_t(get16(rec, 6) & ~0x0008));
    put32(rec, 14, get32(central, c + 16));  // CRC-32, compressed and uncompressed size
    put32(rec, 18, csize);
    put32(rec, 22, get32(central, c + 24));
    put16(central, c + 8, uint16_t(flags & ~0x0008));
    put32(central, c + 42, uint32_t(locals.size()));
    locals.insert(locals.end(), rec.begin(), rec.end());
    c += 46 + n + m + k;
  }
  std::vector<uint8_t> out = std::move(locals);
  const size_t new_cd = out.size();
  out.insert(out.end(), central.begin(), central.end());
  out.insert(out.end(), in.begin() + static_cast<long>(eocd), in.end());
  put32(out, out.size() - 22 + 16, uint32_t(new_cd));
  return out;
}

}  // namespace

std::vector<uint8_t> build_zip(const std::vector<BuiltEntry>& entries) {
  std::vector<uint8_t> out;
  struct archive* a = archive_write_new();
  check(a, archive_write_set_format_zip(a), "zip format");
  archive_write_set_bytes_in_last_block(a, 1);
  check(a, archive_write_open(a, &out, nullptr, append, nullptr), "open");
  for (const auto& e : entries) {
    check(a, e.store ? archive_write_zip_set_compression_store(a) : archive_write_zip_set_compression_deflate(a),
          "compression");
    struct archive_entry* ae = archive_entry_new();
    archive_entry_set_pathname(ae, e.path.c_str());
    archive_entry_set_mtime(ae, 1700000000, 0);
    if (!e.symlink_target.empty()) {
      archive_entry_set_filetype(ae, AE_IFLNK);
      archive_entry_set_perm(ae, 0777);
      archive_entry_set_symlink(ae, e.symlink_target.c_str());
      archive_entry_set_size(ae, 0);
    } else {
      archive_entry_set_filetype(ae, AE_IFREG);
      archive_entry_set_perm(ae, 0644);
      archive_entry_set_size(ae, static_cast<la_int64_t>(e.content.size()));
    }
    check(a, archive_write_header(a, ae), "header");
    if (e.symlink_target.empty() && !e.content.empty()) archive_write_data(a, e.content.data(), e.content.size());
    archive_entry_free(ae);
  }
  check(a, archive_write_close(a), "close");
  archive_write_free(a);
  return seal(out);
}

std::string sha256_record(const std::string& content) {
  Digest d("sha256");
  d.update(content.data(), content.size());
  return "sha256=" + d.digest_b64();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

WheelBuilder::WheelBuilder(std::string name, std::string version, std::string tag)
    : name_(std::move(name)), version_(std::move(version)), tag_(std::move(tag)) {}

WheelBuilder& WheelBuilder::add(const std::string& path, std::string content, bool store) {
  entries_.push_back({path, std::move(content), store, "", true});
  return *this;
}
WheelBuilder& WheelBuilder::add_unrecorded(const std::string& path, std::string content) {
  entries_.push_back({path, std::move(content), false, "", false});
  return *this;
}
WheelBuilder& WheelBuilder::add_symlink(const std::string& path, const std::string& target) {
  entries_.push_back({path, "", false, target, true});
  return *this;
}
WheelBuilder& WheelBuilder::metadata(std::string t) { return metadata_ = std::move(t), *this; }
WheelBuilder& WheelBuilder::wheel_file(std::string t) { return wheel_ = std::move(t), *this; }
WheelBuilder& WheelBuilder::purelib(bool p) { return pure_ = p, *this; }
WheelBuilder& WheelBuilder::requires_python(std::string s) {
  return extra_metadata_.push_back("Requires-Python: " + s), *this;
}
WheelBuilder& WheelBuilder::requires_dist(std::string r) {
  return extra_metadata_.push_back("Requires-Dist: " + r), *this;
}
WheelBuilder& WheelBuilder::record_text(std::string t) { return record_ = std::move(t), *this; }
WheelBuilder& WheelBuilder::edit_record(std::function<void(std::vector<std::vector<std::string>>&)> f) {
  return edit_ = std::move(f), *this;
}
WheelBuilder& WheelBuilder::dist_info_name(std::string d) { return dist_info_ = std::move(d), *this; }
WheelBuilder& WheelBuilder::no_record() { return with_record_ = false, *this; }
WheelBuilder& WheelBuilder::no_wheel_file() { return with_wheel_ = false, *this; }
WheelBuilder& WheelBuilder::no_metadata() { return with_metadata_ = false, *this; }
WheelBuilder& WheelBuilder::filename(std::string f) { return filename_ = std::move(f), *this; }

std::string WheelBuilder::dist_info() const {
  return dist_info_ ? *dist_info_ : escape_name(name_) + "-" + version_ + ".dist-info";
}

std::string WheelBuilder::filename() const {
  return filename_ ? *filename_ : escape_name(name_) + "-" + version_ + "-" + tag_ + ".whl";
}

std::vector<uint8_t> WheelBuilder::build() const {
  std::vector<BuiltEntry> all = entries_;
  const std::string di = dist_info();
  if (with_metadata_) {
    std::string m =
        metadata_ ? *metadata_
                  : "Metadata-Version: 2.1\nName: " + name_ + "\nVersion: " + version_ + "\nSummary: test wheel\n";
    for (const auto& x : extra_metadata_) m += x + "\n";
    all.push_back({di + "/METADATA", m, false, "", true});
  }
  if (with_wheel_) {
    std::string w = wheel_ ? *wheel_
                           : "Wheel-Version: 1.0\nGenerator: wheelcheck-tests\nRoot-Is-Purelib: " +
                                 std::string(pure_ ? "true" : "false") + "\n";
    if (!wheel_)
      for (const auto& t : expand(tag_)) w += "Tag: " + t + "\n";
    all.push_back({di + "/WHEEL", w, false, "", true});
  }
  if (with_record_) {
    std::string rec;
    if (record_) {
      rec = *record_;
    } else {
      std::vector<std::vector<std::string>> rows;
      for (const auto& e : all)
        if (e.in_record)
          rows.push_back(
              {e.path, e.symlink_target.empty() ? sha256_record(e.content) : "", std::to_string(e.content.size())});
      rows.push_back({di + "/RECORD", "", ""});
      if (edit_) edit_(rows);
      for (const auto& r : rows) {
        for (size_t i = 0; i < r.size(); ++i) rec += (i ? "," : "") + csv_field(r[i]);
        rec += "\r\n";
      }
    }
    all.push_back({di + "/RECORD", rec, false, "", true});
  }
  return build_zip(all);
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string WheelBuilder::write(const std::string& dir) const {
  std::filesystem::create_directories(dir);
  std::string path = (std::filesystem::path(dir) / filename()).string();
  write_file(path, build());
  return path;
}

}  // namespace wc::testing
