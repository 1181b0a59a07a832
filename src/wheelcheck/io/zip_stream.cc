#include "io/zip_stream.h"

#include <archive.h>
#include <archive_entry.h>

#include <map>
#include <memory>
#include <set>
#include <unordered_map>

namespace wc {
namespace {

// libarchive client callbacks over a Source.
struct SourceClient {
  Source* src = nullptr;
  uint64_t pos = 0;
  std::vector<uint8_t> buf = std::vector<uint8_t>(256 * 1024);
  std::string io_error;
};

la_ssize_t client_read(struct archive* a, void* data, const void** out) {
  auto* c = static_cast<SourceClient*>(data);
  try {
    size_t n = c->src->read_at(c->pos, c->buf.data(), c->buf.size());
    c->pos += n;
    *out = c->buf.data();
    return static_cast<la_ssize_t>(n);
  } catch (const IoError& e) {
    c->io_error = e.what();
    archive_set_error(a, EIO, "%s", e.what());
    return -1;
  }
}

la_int64_t client_seek(struct archive*, void* data, la_int64_t offset, int whence) {
  auto* c = static_cast<SourceClient*>(data);
  int64_t base = whence == SEEK_SET   ? 0
                 : whence == SEEK_CUR ? static_cast<int64_t>(c->pos)
                                      : static_cast<int64_t>(c->src->size());
  int64_t p = base + offset;
  if (p < 0) return ARCHIVE_FATAL;
  c->pos = static_cast<uint64_t>(p);
  return p;
}

la_int64_t client_skip(struct archive*, void* data, la_int64_t request) {
  auto* c = static_cast<SourceClient*>(data);
  uint64_t left = c->src->size() > c->pos ? c->src->size() - c->pos : 0;
  uint64_t n = std::min<uint64_t>(static_cast<uint64_t>(request), left);
  c->pos += n;
  return static_cast<la_int64_t>(n);
}

struct ArchiveFree {
  void operator()(struct archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<struct archive, ArchiveFree>;

ArchivePtr open_archive(SourceClient& client, std::string& error) {
  ArchivePtr a(archive_read_new());
  archive_read_support_format_zip_seekable(a.get());
  // Names are bytes to us; keep libarchive from converting them through the locale.
  archive_read_set_options(a.get(), "zip:hdrcharset=UTF-8");
  archive_read_set_read_callback(a.get(), client_read);
  archive_read_set_seek_callback(a.get(), client_seek);
  archive_read_set_skip_callback(a.get(), client_skip);
  archive_read_set_callback_data(a.get(), &client);
  if (archive_read_open1(a.get()) != ARCHIVE_OK) {
    const char* m = archive_error_string(a.get());
    error = std::string("libarchive cannot open the archive: ") + (m ? m : "unknown error");
    return nullptr;
  }
  return a;
}

std::string entry_name(struct archive_entry* e) {
  const char* n = archive_entry_pathname_utf8(e);
  if (!n) n = archive_entry_pathname(e);
  return n ? n : "";
}

// Maps libarchive's headers (which come in local-header-offset order) back to central entries:
// the first not yet visited entry with the same name.
class EntryMatcher {
 public:
  explicit EntryMatcher(const ZipIndex& idx) {
    by_name_.reserve(idx.entries.size());
    for (const auto& z : idx.entries) by_name_[z.name].first.push_back(z.central_index);
  }
  const ZipEntry* next(const ZipIndex& idx, const std::string& name) {
    auto it = by_name_.find(name);
    if (it == by_name_.end() || it->second.second >= it->second.first.size()) return nullptr;
    return &idx.entries[it->second.first[it->second.second++]];  // duplicates in order, O(1) each
  }

 private:
  std::unordered_map<std::string, std::pair<std::vector<size_t>, size_t>> by_name_;
};

std::string archive_msg(struct archive* a, const char* fallback) {
  const char* m = archive_error_string(a);
  return m ? m : fallback;
}

// Inflates the current entry block by block into `sink` (data, size, offset in the entry), which
// returns false to stop. Returns libarchive's complaint about the entry, or "".
template <typename Sink>
std::string read_entry_data(struct archive* a, Sink&& sink) {
  std::string error;
  for (uint64_t pos = 0;;) {
    const void* buf;
    size_t size;
    la_int64_t off;
    int rr = archive_read_data_block(a, &buf, &size, &off);
    if (rr == ARCHIVE_EOF) break;
    if (rr != ARCHIVE_OK) {
      error = archive_msg(a, "data error");
      if (rr == ARCHIVE_WARN && size == 0) continue;
      break;
    }
    if (size && !sink(static_cast<const uint8_t*>(buf), size, pos)) break;
    pos += size;
  }
  return error;
}

}  // namespace

std::vector<ZipProblem> stream_entries(Source& src, const ZipIndex& idx, EntryVisitor& v) {
  Utf8ThreadLocale utf8;  // or every non-ASCII name is lost in the C locale
  std::vector<ZipProblem> problems;
  SourceClient client;
  client.src = &src;
  std::string err;
  ArchivePtr a = open_archive(client, err);
  if (!a) return {{err, "", 0}};
  EntryMatcher matcher(idx);
  struct archive_entry* e;
  for (;;) {
    int r = archive_read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r == ARCHIVE_FATAL) {
      problems.push_back({"reading stopped: " + archive_msg(a.get(), "fatal error"), "", client.pos});
      break;
    }
    std::string name = entry_name(e);
    const ZipEntry* z = matcher.next(idx, name);
    if (!z) {
      problems.push_back({"libarchive found an entry the central directory does not list", name, 0});
      continue;
    }
    if (r == ARCHIVE_WARN || r == ARCHIVE_FAILED) {
      v.end(*z, archive_msg(a.get(), "bad entry header"));
      if (r == ARCHIVE_FAILED) continue;
    }
    if (!v.begin(*z)) continue;
    std::string entry_error =
        read_entry_data(a.get(), [&](const uint8_t* d, size_t n, uint64_t) { return v.data(d, n); });
    v.end(*z, entry_error);
    if (archive_errno(a.get()) == EIO && !client.io_error.empty()) {
      problems.push_back({client.io_error, "", client.pos});
      break;
    }
  }
  return problems;
}

std::map<size_t, std::string> reread_entries(Source& src, const ZipIndex& idx,
                                             const std::map<size_t, RereadSink>& sinks) {
  Utf8ThreadLocale utf8;  // or every non-ASCII name is lost in the C locale
  std::map<size_t, std::string> errors;
  SourceClient client;
  client.src = &src;
  std::string err;
  ArchivePtr a = open_archive(client, err);
  if (!a) {
    for (const auto& [i, _] : sinks) errors[i] = err;
    return errors;
  }
  EntryMatcher matcher(idx);
  std::set<size_t> found;
  struct archive_entry* e;
  while (found.size() < sinks.size() && archive_read_next_header(a.get(), &e) == ARCHIVE_OK) {
    const ZipEntry* z = matcher.next(idx, entry_name(e));
    if (!z) continue;
    auto it = sinks.find(z->central_index);
    if (it == sinks.end()) continue;
    found.insert(z->central_index);
    std::string error = read_entry_data(a.get(), it->second);
    if (!error.empty()) errors[z->central_index] = error;
  }
  for (const auto& [i, _] : sinks)
    if (!found.count(i)) errors[i] = "entry not found on second read";
  return errors;
}

}  // namespace wc
