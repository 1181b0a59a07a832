#include "facts/analyze.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "binary/binary_facts.h"
#include "facts/binary_collector.h"
#include "io/targets.h"
#include "io/zip_stream.h"
#include "util/digest.h"
#include "util/strings.h"
#include "wheel/entry_names.h"

namespace wc {
namespace {

// The dist-info directory the rules judge: the one named after the filename when several exist.
std::string choose_dist_info(const WheelFacts& f) {
  if (f.dist_info_dirs.empty()) return "";
  if (f.filename.valid) {
    for (const auto& d : f.dist_info_dirs) {
      auto dash = d.rfind('-');
      if (dash != std::string::npos && canonicalize_name(d.substr(0, dash)) == f.filename.canonical_name) return d;
    }
  }
  return f.dist_info_dirs.front();
}

class WheelVisitor : public EntryVisitor {
 public:
  WheelVisitor(WheelFacts& f, const AnalyzeOptions& opt, std::map<std::string, std::string*> capture,
               BinaryCollector* binaries)
      : f_(f), opt_(opt), capture_(std::move(capture)), binaries_(binaries) {}

  bool begin(const ZipEntry& z) override {
    cur_ = &f_.entries[z.central_index];
    if (z.kind != EntryKind::file) {
      cur_->skipped = "not a regular file";
      return false;
    }
    if (stopped_) {
      cur_->skipped = "reading stopped at the total uncompressed size limit";
      return false;
    }
    if (opt_.refuse_over_limits && z.uncompressed_size >= opt_.limits.ratio_min_entry_bytes &&
        ratio(z) > opt_.limits.max_compression_ratio) {
      cur_->skipped = "compression ratio over the limit; not inflated";
      return false;
    }
    sha_.emplace();
    auto it = capture_.find(z.name);
    text_ = it == capture_.end() ? nullptr : it->second;
    if (text_) text_->clear();
    if (binaries_) binaries_->begin_entry(z);
    return true;
  }

  bool data(const uint8_t* p, size_t n) override {
    if (cur_->bytes_read == 0) cur_->magic = sniff_binary(p, n);
    if (cur_->bytes_read + n > cur_->size) {
      cur_->read_error = "entry inflates past its declared size of " + std::to_string(cur_->size) + " bytes";
      return false;
    }
    total_ += n;
    if (total_ > opt_.limits.max_total_uncompressed_bytes) {
      f_.limit_events.push_back({"total uncompressed size passes the limit of " +
                                     std::to_string(opt_.limits.max_total_uncompressed_bytes) + " bytes; reading stopped",
                                 cur_->name});
      cur_->skipped = "total uncompressed size limit reached";
      stopped_ = true;
      return false;
    }
    cur_->bytes_read += n;
    sha_->update(p, n);
    if (text_) {
      if (text_->size() + n > opt_.limits.max_metadata_bytes) {
        f_.dist_info_read_errors.push_back(cur_->name + " is larger than the metadata size limit (" +
                                           std::to_string(opt_.limits.max_metadata_bytes) + " bytes); not parsed");
        oversize_.insert(cur_->name);
        text_->clear();
        text_ = nullptr;
      } else {
        text_->append(reinterpret_cast<const char*>(p), n);
      }
    }
    if (binaries_) binaries_->data(p, n);
    return true;
  }

  void end(const ZipEntry& z, const std::string& error) override {
    EntryFacts& e = f_.entries[z.central_index];
    if (!error.empty() && e.read_error.empty()) e.read_error = error;
    if (sha_ && &e == cur_) {
      if (e.complete()) e.sha256 = sha_->digest_b64();
      if (binaries_) binaries_->end_entry(e);
    }
    if (!e.complete() && text_) text_->clear();
    sha_.reset();
    text_ = nullptr;
    cur_ = nullptr;
  }

 private:
  static double ratio(const ZipEntry& z) {
    return z.compressed_size ? double(z.uncompressed_size) / double(z.compressed_size) : double(z.uncompressed_size);
  }

  WheelFacts& f_;
  const AnalyzeOptions& opt_;
  std::map<std::string, std::string*> capture_;
  BinaryCollector* binaries_;
  EntryFacts* cur_ = nullptr;
  std::optional<Digest> sha_;
  std::string* text_ = nullptr;
  uint64_t total_ = 0;
  bool stopped_ = false;
  std::set<std::string> oversize_;

 public:
  bool oversize(const std::string& name) const { return oversize_.count(name) > 0; }
};

void index_to_facts(const ZipIndex& idx, WheelFacts& f) {
  f.unreadable = idx.fatal;
  f.inconsistent = idx.inconsistent;
  f.methods = idx.methods;
  f.zip64 = idx.zip64;
  std::set<std::string> dirs;
  for (const auto& z : idx.entries) {
    EntryFacts e;
    e.name = z.name;
    e.kind = z.kind;
    e.unix_mode = z.unix_mode;
    e.method = z.method;
    e.size = z.uncompressed_size;
    e.compressed_size = z.compressed_size;
    f.entries.push_back(std::move(e));
    auto slash = z.name.find('/');
    if (slash != std::string::npos && z.name.substr(0, slash).ends_with(".dist-info")) dirs.insert(z.name.substr(0, slash));
  }
  f.dist_info_dirs.assign(dirs.begin(), dirs.end());
  f.dist_info = choose_dist_info(f);
  f.reindex();
}

// RECORD may use sha384 or sha512; the stream computed SHA-256 only (what nearly every wheel
// uses), so entries recorded with another algorithm are read once more, with that digest.
void hash_other_algorithms(Source& src, const ZipIndex& idx, WheelFacts& f) {
  std::map<size_t, std::string> want;
  for (const auto& row : f.record->rows) {
    auto eq = row.hash.find('=');
    std::string algo = eq == std::string::npos ? "" : to_lower(row.hash.substr(0, eq));
    if (algo != "sha384" && algo != "sha512") continue;
    const EntryFacts* e = f.find_entry(row.path);
    if (e && e->complete()) want[static_cast<size_t>(e - f.entries.data())] = algo;
  }
  if (want.empty()) return;
  std::map<size_t, Digest> digests;
  std::map<size_t, RereadSink> sinks;
  for (const auto& [index, algo] : want) {
    size_t i = index;  // clang 14 cannot capture a structured binding
    digests.emplace(i, Digest(algo));
    sinks[i] = [&digests, i](const uint8_t* p, size_t n, uint64_t) {
      digests.at(i).update(p, n);
      return true;
    };
  }
  auto errors = reread_entries(src, idx, sinks);
  for (auto& [i, d] : digests)
    if (!errors.count(i)) f.entries[i].other_digests[want[i]] = d.digest_b64();
}

}  // namespace

WheelFacts analyze_wheel(Source& src, const AnalyzeOptions& opt) {
  WheelFacts f;
  f.path = src.display_name();
  f.file_size = src.size();
  f.filename = parse_wheel_filename(target_basename(f.path));
  ZipIndex idx;
  try {
    idx = read_zip_index(src);
  } catch (const IoError& e) {
    f.unreadable.push_back({e.what(), "", 0});
    return f;
  }
  index_to_facts(idx, f);
  if (!idx.ok()) return f;
  if (opt.refuse_over_limits && idx.entries.size() > opt.limits.max_entries) {
    // WC403 reports the count from the central directory; nothing is inflated.
    for (auto& e : f.entries) e.skipped = "entry count over the limit";
    return f;
  }
  std::string wheel_text, metadata_text, record_text;
  std::map<std::string, std::string> extra_text;
  std::map<std::string, std::string*> capture;
  for (const auto& path : opt.capture_files) capture[path] = &extra_text[path];
  if (!f.dist_info.empty()) {
    capture[f.dist_info + "/WHEEL"] = &wheel_text;
    capture[f.dist_info + "/METADATA"] = &metadata_text;
    capture[f.dist_info + "/RECORD"] = &record_text;
  }
  std::unique_ptr<BinaryCollector> binaries;
  if (opt.binaries) binaries = std::make_unique<BinaryCollector>(src, idx, f);
  WheelVisitor v(f, opt, capture, binaries.get());
  std::vector<ZipProblem> problems;
  try {
    problems = stream_entries(src, idx, v);
  } catch (const IoError& e) {
    problems.push_back({e.what(), "", 0});
  }
  for (auto& p : problems) f.unreadable.push_back(std::move(p));
  if (binaries) binaries->finish();
  auto read_ok = [&](const char* name) {
    const EntryFacts* e = f.find_entry(f.dist_info + "/" + name);
    return e && e->complete() && !v.oversize(e->name);
  };
  if (!f.dist_info.empty()) {
    if (read_ok("WHEEL")) f.wheel_file = parse_header_file(wheel_text);
    if (read_ok("METADATA")) f.metadata = parse_header_file(metadata_text);
    if (read_ok("RECORD")) f.record = parse_record(record_text);
  }
  for (auto& [path, text] : extra_text)
    if (const EntryFacts* e = f.find_entry(path); e && e->complete() && !v.oversize(path)) f.captured[path] = std::move(text);
  if (f.record) hash_other_algorithms(src, idx, f);
  return f;
}

WheelFacts analyze_target(const std::string& path, const AnalyzeOptions& opt) {
  std::unique_ptr<Source> src;
  try {
    src = open_source(path);
  } catch (const IoError& e) {
    WheelFacts f;
    f.path = path;
    f.filename = parse_wheel_filename(target_basename(path));
    f.unreadable.push_back({e.what(), "", 0});
    return f;
  }
  return analyze_wheel(*src, opt);
}

AnalyzeOptions analyze_options_for(const Policy& p) {
  AnalyzeOptions opt;
  opt.limits = p.limits;
  if (p.cuda.version_file) opt.capture_files.push_back(p.cuda.version_file->path);
  opt.refuse_over_limits = p.severity_of("WC403", Severity::error) != Severity::off;
  return opt;
}

const EntryFacts* WheelFacts::find_entry(const std::string& name) const {
  if (entry_index_.size() > entries.size() || (entry_index_.empty() && !entries.empty())) {  // not indexed: scan
    for (const auto& e : entries)
      if (e.name == name) return &e;
    return nullptr;
  }
  auto it = entry_index_.find(name);
  return it == entry_index_.end() ? nullptr : &entries[it->second];
}

void WheelFacts::reindex() {
  entry_index_.clear();
  install_paths_.clear();
  entry_index_.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    entry_index_.emplace(entries[i].name, i);
    if (entries[i].kind == EntryKind::directory) continue;
    std::string p = install_path(entries[i].name);
    if (!p.empty()) install_paths_.insert(std::move(p));
  }
}

WheelFacts::WheelFacts() = default;
WheelFacts::~WheelFacts() = default;
WheelFacts::WheelFacts(WheelFacts&&) noexcept = default;
WheelFacts& WheelFacts::operator=(WheelFacts&&) noexcept = default;

}  // namespace wc
