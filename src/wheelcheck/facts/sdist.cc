#include "facts/sdist.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <set>

#include "util/digest.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/filename.h"
#include "wheel/version.h"

namespace wc {
namespace {

struct ArchiveFree {
  void operator()(archive* a) const { archive_read_free(a); }
};

// Where a path (or a link target relative to `dir`) lands: nullopt when it leaves the root.
bool stays_inside(std::string_view dir, std::string_view target) {
  if (target.empty() || target.front() == '/' || target.front() == '\\') return false;
  if (target.size() >= 2 && target[1] == ':') return false;  // a drive letter
  int depth = 0;
  for (auto part : split(dir, '/'))
    if (!part.empty() && part != ".") ++depth;
  for (auto part : split(target, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (--depth < 0) return false;
    } else {
      ++depth;
    }
  }
  return true;
}

std::string error_of(archive* a, const char* otherwise) {
  const char* e = archive_error_string(a);
  return e ? e : otherwise;
}

// libarchive's reader over a Source: blocks in order from byte 0, each hashed as it passes; a
// source's IoError becomes libarchive's fatal error with the same words.
struct Feed {
  Source& src;
  uint64_t at = 0;
  Digest sha{"sha256"};
  std::vector<char> block = std::vector<char>(256 << 10);
  std::string error{};
  bool in_order = true;  // no seek yet: the hash is the file's

  static la_int64_t seek(archive*, void* self, la_int64_t offset, int whence) {
    auto* f = static_cast<Feed*>(self);
    const auto size = static_cast<la_int64_t>(f->src.size());
    la_int64_t to = whence == SEEK_SET   ? offset
                    : whence == SEEK_CUR ? static_cast<la_int64_t>(f->at) + offset
                                         : size + offset;
    if (to < 0) return ARCHIVE_FATAL;
    if (static_cast<uint64_t>(to) != f->at) f->in_order = false;
    f->at = static_cast<uint64_t>(std::min(to, size));
    return static_cast<la_int64_t>(f->at);
  }

  static la_ssize_t read(archive* a, void* self, const void** out) {
    auto* f = static_cast<Feed*>(self);
    try {
      size_t n = f->src.read_at(f->at, f->block.data(), f->block.size());
      if (f->in_order) f->sha.update(f->block.data(), n);
      f->at += n;
      *out = f->block.data();
      return static_cast<la_ssize_t>(n);
    } catch (const std::exception& e) {
      f->error = e.what();
      archive_set_error(a, EIO, "%s", e.what());
      return -1;
    }
  }
};

}  // namespace

std::string pep625_sdist_name(const std::string& name, const std::string& version) {
  auto v = parse_version(version);
  return escape_name(name) + "-" + (v ? v->normalized() : version) + ".tar.gz";
}

SdistFacts read_sdist(const std::string& location, const Limits& limits) {
  std::unique_ptr<Source> src;
  try {
    src = open_source(location, ReadPlan::whole);
  } catch (const std::exception& e) {
    SdistFacts out;
    out.problems.push_back({"WC404", std::string("cannot be read: ") + e.what(), ""});
    return out;
  }
  SdistFacts out = read_sdist(*src, limits);
  src->settle();
  return out;
}

SdistFacts read_sdist(Source& src, const Limits& limits) {
  SdistFacts out;
  auto problem = [&](const char* rule, std::string message, std::string entry = "") {
    if (out.problems.size() < 50) out.problems.push_back({rule, std::move(message), std::move(entry)});
  };
  const uint64_t file_size = src.size();
  out.compressed = file_size;
  Feed feed{src};
  std::unique_ptr<archive, ArchiveFree> a(archive_read_new());
  archive_read_support_filter_all(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_gnutar(a.get());
  archive_read_support_format_zip(a.get());  // seekable: the central directory, as pip's zipfile reads it
  archive_read_set_seek_callback(a.get(), &Feed::seek);
  if (archive_read_open(a.get(), &feed, nullptr, &Feed::read, nullptr) != ARCHIVE_OK) {
    problem("WC404", std::string("not a tar or zip archive: ") + error_of(a.get(), "unreadable"));
    return out;
  }
  std::set<std::string> tops;
  bool pkg_info_seen = false;
  archive_entry* e = nullptr;
  for (;;) {
    int r = archive_read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r < ARCHIVE_WARN) {
      problem("WC404", std::string("the archive stops being readable after ") + std::to_string(out.entries) +
                           " entries: " + error_of(a.get(), "unreadable"));
      break;
    }
    if (out.format.empty()) {
      const int filter = archive_filter_code(a.get(), 0);
      const bool zip = archive_format(a.get()) == ARCHIVE_FORMAT_ZIP ||
                       (archive_format(a.get()) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ZIP;
      out.format = zip                             ? "zip"
                   : filter == ARCHIVE_FILTER_GZIP ? "tar.gz"
                   : filter == ARCHIVE_FILTER_NONE
                       ? "tar"
                       : "tar." + std::string(archive_filter_name(a.get(), 0) ? archive_filter_name(a.get(), 0) : "?");
    }
    if (++out.entries > limits.max_entries) {
      problem("WC403",
              "more than " + std::to_string(limits.max_entries) + " entries (limits.max_entries): not read on");
      break;
    }
    const char* raw = archive_entry_pathname_utf8(e);
    if (!raw) raw = archive_entry_pathname(e);
    std::string name = raw ? raw : "";
    if (name.size() > limits.max_path_length) {
      problem("WC403",
              "an entry name of " + std::to_string(name.size()) + " bytes, over limits.max_path_length (" +
                  std::to_string(limits.max_path_length) + ")",
              clip_for_display(name, 120));
      archive_read_data_skip(a.get());
      continue;
    }
    std::string shown = clip_for_display(name, 200);
    while (name.starts_with("./")) name.erase(0, 2);
    if (name.empty()) continue;
    // Where it extracts: tarfile's "data" filter (and pip, which uses it) refuses absolute names and
    // names that climb out of the extraction folder.
    if (!stays_inside("", name)) problem("WC401", "extracts outside the folder it is unpacked into", shown);
    const auto type = archive_entry_filetype(e);
    if (const char* link = archive_entry_symlink(e); link && type == AE_IFLNK) {
      if (!stays_inside(parent_dir(name), link))
        problem("WC401",
                std::string("a symbolic link to ") + clip_for_display(link, 120) + ", outside the archive's root",
                shown);
    }
    if (const char* hard = archive_entry_hardlink(e)) {
      if (!stays_inside("", hard))
        problem("WC401", std::string("a hard link to ") + clip_for_display(hard, 120) + ", outside the archive's root",
                shown);
    }
    if (type == AE_IFCHR || type == AE_IFBLK || type == AE_IFIFO || type == AE_IFSOCK)
      problem("WC402",
              std::string(type == AE_IFIFO    ? "a FIFO"
                          : type == AE_IFSOCK ? "a socket"
                                              : "a device file") +
                  ": tarfile's data filter (and so pip) refuses to extract it",
              shown);
    const auto first = name.substr(0, name.find('/'));
    tops.insert(first);
    const uint64_t size =
        archive_entry_size_is_set(e) && archive_entry_size(e) > 0 ? static_cast<uint64_t>(archive_entry_size(e)) : 0;
    // A bomb is judged from the sizes the headers declare before anything is inflated: PyPI's rule
    // (over 64 MiB in all at more than 50:1), and the total limit.
    const uint64_t total = out.uncompressed + size < out.uncompressed ? UINT64_MAX : out.uncompressed + size;
    if (total > limits.max_total_uncompressed_bytes || limits.wheel_over_ratio(total, file_size)) {
      problem("WC403",
              "declares " + human_bytes(total) + " unpacked from " + human_bytes(file_size) +
                  (total > limits.max_total_uncompressed_bytes ? " (over limits.max_total_uncompressed_bytes)"
                                                               : " (over 64 MiB at more than 50:1, PyPI's limit)") +
                  ": not read on",
              shown);
      break;
    }
    out.uncompressed = total;
    // <top>/PKG-INFO: the one file read whole (a second copy deeper down is some package's own).
    const size_t slash = name.find('/');
    if (type == AE_IFREG && slash != std::string::npos && name.substr(slash + 1) == "PKG-INFO") {
      pkg_info_seen = true;
      if (size > limits.max_metadata_bytes) {
        out.pkg_info_problem = name + " is " + human_bytes(size) + ", over limits.max_metadata_bytes";
      } else {
        std::string text;
        char buf[1 << 16];
        for (la_ssize_t n; (n = archive_read_data(a.get(), buf, sizeof buf)) > 0;) {
          text.append(buf, static_cast<size_t>(n));
          if (text.size() > limits.max_metadata_bytes) break;
        }
        if (!out.pkg_info) out.pkg_info = parse_header_file(text);
      }
      continue;
    }
    if (archive_read_data_skip(a.get()) < ARCHIVE_WARN) {
      problem("WC404", std::string("entry data cannot be read: ") + error_of(a.get(), "truncated"), shown);
      break;
    }
  }
  if (out.entries == 0 && out.problems.empty()) problem("WC404", "an empty archive");
  // What follows the archive's end marker (tar's padding, a zip's central directory) is read too,
  // so the hash is the file's; only when nothing stopped the walk early.
  if (out.problems.empty() || std::all_of(out.problems.begin(), out.problems.end(), [](const SdistProblem& p) {
        return p.rule != std::string("WC404") && p.rule != std::string("WC403");
      })) {
    try {
      for (size_t n; feed.in_order && feed.at < file_size &&
                     (n = src.read_at(feed.at, feed.block.data(), feed.block.size())) > 0;) {
        feed.sha.update(feed.block.data(), n);
        feed.at += n;
      }
      if (feed.at == file_size && feed.in_order) out.sha256 = feed.sha.digest_hex();
    } catch (const std::exception& e) {
      problem("WC404", std::string("the end of the file cannot be read: ") + e.what());
    }
  }
  if (tops.size() == 1) out.top = *tops.begin();
  if (!out.pkg_info && out.pkg_info_problem.empty())
    out.pkg_info_problem =
        pkg_info_seen
            ? "PKG-INFO could not be read"
            : "no PKG-INFO in the archive's top-level folder" +
                  (tops.size() == 1 ? " (" + out.top + "/PKG-INFO)"
                                    : std::string(" (it has ") + std::to_string(tops.size()) + " top-level entries)");
  return out;
}

bool promises_static_metadata(const HeaderFile& pkg_info) {
  auto have = parse_version(pkg_info.get("Metadata-Version").value_or("")), v22 = parse_version("2.2");
  return have && v22 && compare(*have, *v22) >= 0;
}

}  // namespace wc
