#include "install_diff.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>

#include "facts/analyze.h"
#include "io/source.h"
#include "io/zip_stream.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "util/digest.h"
#include "util/strings.h"
#include "wheel/entry_names.h"

namespace wc::fuzz {
namespace {

const Policy& policy() {
  static const Policy p = load_policy("default");
  return p;
}

bool is_dist_info_record(std::string_view name) {
  auto slash = name.find('/');
  return slash != std::string_view::npos && name.substr(0, slash).ends_with(".dist-info") &&
         name.substr(slash + 1) == "RECORD";
}

struct ArchiveFree {
  void operator()(struct archive* a) const { archive_read_free(a); }
};

}  // namespace

InstallReading wheelcheck_reading(const std::vector<uint8_t>& zip, const std::string& filename, std::string* why) {
  MemorySource src(filename, zip);
  AnalyzeOptions opt = analyze_options_for(policy());
  opt.limits.max_total_uncompressed_bytes = 64u << 20;  // a mutant's work stays bounded
  WheelFacts f = analyze_wheel(src, opt);
  InstallReading r;
  for (const auto& finding : check_wheel(f, policy()).findings) {
    if (finding.severity != Severity::error) continue;
    std::string line = finding.rule + " " + (finding.entry.empty() ? "" : clip_for_display(finding.entry, 80) + ": ") +
                       finding.message;
    if (r.refused.empty()) r.refused = line;
    if (why) *why += line + "\n";
  }
  for (auto& [key, file] : install_map(f)) r.files[key] = file.sha256;
  return r;
}

InstallReading libarchive_reading(const std::vector<uint8_t>& zip, bool streaming) {
  Utf8ThreadLocale utf8;  // names as bsdtar shows them in a UTF-8 locale
  InstallReading r;
  std::unique_ptr<struct archive, ArchiveFree> a(archive_read_new());
  if (streaming)
    archive_read_support_format_zip_streamable(a.get());
  else
    archive_read_support_format_zip_seekable(a.get());
  archive_read_set_options(a.get(), "zip:hdrcharset=UTF-8");
  if (archive_read_open_memory(a.get(), zip.data(), zip.size()) != ARCHIVE_OK) {
    const char* m = archive_error_string(a.get());
    r.refused = std::string("libarchive cannot open it: ") + (m ? m : "?");
    return r;
  }
  struct archive_entry* e;
  for (;;) {
    int rc = archive_read_next_header(a.get(), &e);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
      const char* m = archive_error_string(a.get());
      r.refused = std::string("libarchive: ") + (m ? m : "bad header");
      return r;
    }
    const char* n = archive_entry_pathname_utf8(e);
    if (!n) n = archive_entry_pathname(e);
    if (!n) {
      r.notes.push_back(std::string("an entry whose name libarchive cannot decode: ") +
                        (archive_error_string(a.get()) ? archive_error_string(a.get()) : "?"));
      continue;
    }
    std::string name = n;
    const auto type = archive_entry_filetype(e);
    if (type == AE_IFDIR || is_dist_info_record(name)) continue;
    auto t = install_target(name);
    std::string key = t ? t->key() : "(not placed) " + name;
    if (type != AE_IFREG) {
      r.notes.push_back(key + ": not a regular file (type " + std::to_string(type) + ")");
      continue;
    }
    Digest d("sha256");
    for (;;) {
      const void* buf;
      size_t size;
      la_int64_t off;
      int dr = archive_read_data_block(a.get(), &buf, &size, &off);
      if (dr == ARCHIVE_EOF) break;
      if (dr != ARCHIVE_OK) {
        const char* m = archive_error_string(a.get());
        r.refused = "libarchive: " + clip_for_display(name, 80) + ": " + (m ? m : "data error");
        return r;
      }
      d.update(buf, size);
    }
    if (t) r.files[key] = d.digest_b64();
  }
  return r;
}

std::string reading_difference(const InstallReading& gate, const InstallReading& other, const std::string& other_name,
                               size_t max_lines) {
  std::vector<std::string> lines;
  if (!other.refused.empty()) lines.push_back(other_name + " refuses the wheel: " + other.refused);
  for (const auto& n : other.notes) lines.push_back(other_name + ": " + n);
  if (other.refused.empty()) {
    auto g = gate.files.begin(), o = other.files.begin();
    while (g != gate.files.end() || o != other.files.end()) {
      if (o == other.files.end() || (g != gate.files.end() && g->first < o->first)) {
        lines.push_back(clip_for_display(g->first) + ": wheelcheck " + g->second + ", " + other_name + " absent");
        ++g;
      } else if (g == gate.files.end() || o->first < g->first) {
        lines.push_back(clip_for_display(o->first) + ": wheelcheck absent, " + other_name + " " + o->second);
        ++o;
      } else {
        if (g->second != o->second)
          lines.push_back(clip_for_display(g->first) + ": wheelcheck " + (g->second.empty() ? "unread" : g->second) +
                          ", " + other_name + " " + o->second);
        ++g, ++o;
      }
    }
  }
  std::string out;
  for (size_t i = 0; i < lines.size() && i < max_lines; ++i) out += lines[i] + "\n";
  if (lines.size() > max_lines) out += std::to_string(lines.size() - max_lines) + " more differences\n";
  return out;
}

}  // namespace wc::fuzz
