#include "facts/analyze.h"

#include <algorithm>
#include <atomic>
#include <bitset>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>

#include "binary/binary_facts.h"
#include "binary/version_strings.h"
#include "facts/binary_capture.h"
#include "io/inflate.h"
#include "io/targets.h"
#include "util/block_pipe.h"
#include "util/budget.h"
#include "util/byte_scan.h"
#include "util/digest.h"
#include "util/memory.h"
#include "util/order.h"
#include "util/parse.h"
#include "util/strings.h"
#include "util/thread_lease.h"
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

// What the index found wrong with the archive, as facts.
void index_to_problems(const ZipIndex& idx, WheelFacts& f) {
  f.unreadable = idx.fatal;
  f.inconsistent = idx.inconsistent;
  f.methods = idx.methods;
  f.unsafe_names = idx.unsafe_names;
  f.upload_refusals = idx.upload_refusals;
  f.overlapping_entries = idx.overlapping_entries;
  f.overlapping_bytes = idx.overlapping_bytes;
  f.zip64 = idx.zip64;
}

void index_to_facts(const ZipIndex& idx, WheelFacts& f) {
  index_to_problems(idx, f);
  std::set<std::string> dirs;
  reserve_filled_once(f.entries, idx.entries.size());
  for (const auto& z : idx.entries) {
    EntryFacts& e = f.entries.emplace_back();  // in place: 272 bytes a move would copy, 100,000 times
    e.name = z.name;
    e.kind = z.kind;
    e.unix_mode = z.unix_mode;
    e.method = z.method;
    e.size = z.uncompressed_size;
    e.compressed_size = z.compressed_size;
    const std::string_view top = std::string_view(z.name).substr(0, z.name.find('/'));  // no copy per entry
    if (top.size() < z.name.size() && top.ends_with(".dist-info")) dirs.emplace(top);
  }
  f.dist_info_dirs.assign(dirs.begin(), dirs.end());
  f.dist_info = choose_dist_info(f);
  f.reindex();
}

// PEP 770: `<name>.dist-info/sboms/...` (any dist-info directory: a second one is judged elsewhere).
bool is_sbom_entry(std::string_view name) {
  auto slash = name.find('/');
  return slash != std::string_view::npos && name.substr(0, slash).ends_with(".dist-info") &&
         name.substr(slash + 1).starts_with("sboms/") && !name.ends_with("/");
}

// Entries --depth metadata reads the first bytes of: named like native code, or executable.
bool binary_like(const ZipEntry& z) {
  return is_native_library_name(z.name) || (z.unix_mode & 0111) || z.name.ends_with(".exe") ||
         z.name.ends_with(".cubin") || z.name.ends_with(".fatbin");
}

// At --depth metadata only these entries need their local headers (data offsets): the dist-info
// files, the files a policy reads, and binaries.
bool read_at_metadata_depth(const ZipEntry& z, const AnalyzeOptions& opt) {
  auto slash = z.name.find('/');
  if (slash != std::string::npos && z.name.find('/', slash + 1) == std::string::npos &&
      std::string_view(z.name).substr(0, slash).ends_with(".dist-info"))
    return true;
  if (is_sbom_entry(z.name) && z.kind == EntryKind::file) return true;
  if (std::find(opt.capture_files.begin(), opt.capture_files.end(), z.name) != opt.capture_files.end()) return true;
  return opt.binaries && binary_like(z);
}

// A .pth file site-packages reads at start-up: top level of the wheel, or of its purelib/platlib.
bool is_site_pth(std::string_view name) {
  if (!name.ends_with(".pth")) return false;
  auto slash = name.rfind('/');
  if (slash == std::string_view::npos) return true;
  std::string_view dir = name.substr(0, slash);
  auto first = dir.find('/');
  if (first == std::string_view::npos || dir.find('/', first + 1) != std::string_view::npos) return false;
  std::string_view top = dir.substr(0, first), sub = dir.substr(first + 1);
  return top.ends_with(".data") && (sub == "purelib" || sub == "platlib");
}

// Compressed bytes --depth metadata reads of an entry it wants: all of a dist-info file or a
// captured one, the start of a binary (what inflating its header prefix takes: the input is read in
// blocks of 16 KiB, then 32 KiB). Planned with the local headers, so a remote wheel fetches them
// together.
uint64_t metadata_depth_data(const ZipEntry& z, const AnalyzeOptions& opt) {
  if (opt.binaries && binary_like(z)) return 48u << 10;
  return std::min<uint64_t>(z.compressed_size, opt.limits.max_metadata_bytes);
}

double ratio(const ZipEntry& z) {
  return z.compressed_size ? double(z.uncompressed_size) / double(z.compressed_size) : double(z.uncompressed_size);
}

// Reads a wheel's entries: each byte inflated once (ISA-L, straight from the zip index), hashed,
// sniffed and handed to the binary capture on the way; entries spread over `threads` workers,
// largest first. The dist-info files are read before the rest, so RECORD says up front which
// entries need a sha384 or sha512 as well.
class WheelReader {
 public:
  WheelReader(Source& src, const ZipIndex& idx, WheelFacts& f, const AnalyzeOptions& opt)
      : src_(src), idx_(idx), f_(f), opt_(opt) {}
  // While the bytes stream in (Source::streams_in_order): `idx` holds the central directory alone,
  // and each entry's data offset is read from its local header as the entry is reached (written
  // into `idx`). The entries go in file order, the dist-info ones included, so each is read as it
  // lands; RECORD's sha384/sha512 rows are digested afterwards, from bytes already here.
  WheelReader(Source& src, ZipIndex& idx, WheelFacts& f, const AnalyzeOptions& opt, bool streamed)
      : src_(src), idx_(idx), f_(f), opt_(opt), located_(streamed ? &idx : nullptr) {}

  // The streamed read, in two steps: every entry as it arrives, then (once the caller has the full
  // index, whose layout it compares with what was located) what needs the dist-info files.
  // Returns false when an entry's local header could not be followed: the caller reads the wheel
  // the usual way then, and the full index says why.
  bool stream_pass() {
    apply_total_limit();
    std::vector<size_t> order(idx_.entries.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto by_offset = [&](size_t a, size_t b) { return idx_.entries[a].local_offset < idx_.entries[b].local_offset; };
    if (!std::is_sorted(order.begin(), order.end(), by_offset)) std::stable_sort(order.begin(), order.end(), by_offset);
    run_workers(order);
    if (first_exception_) std::rethrow_exception(first_exception_);
    return !lost_;
  }
  // Whether entry i's data offset was read from its local header in stream_pass() (the central
  // directory alone sets none).
  bool located(size_t i) const { return idx_.entries[i].data_offset != 0; }
  void finish_streamed() {
    std::set<std::string> early;
    for (const auto& [name, text] : texts_) early.insert(name);
    parse_dist_info();
    // The usual read digests sha384/sha512 as it goes, for entries after the dist-info files.
    for (const auto& [name, algo] : other_algos_) {
      if (early.count(name)) continue;
      const EntryFacts* e = f_.find_entry(name);
      if (!e || !e->complete() || e->other_digests.count(algo)) continue;
      const size_t i = static_cast<size_t>(e - f_.entries.data());
      Digest d(algo);
      EntryRead r = read_entry(src_, idx_.entries[i], [&](const uint8_t* p, size_t n, uint64_t) {
        d.update(p, n);
        return true;
      });
      if (r.error.empty()) f_.entries[i].other_digests[algo] = d.digest_b64();
    }
    finish();
  }

  void run() {
    apply_total_limit();
    std::set<std::string> first;
    for (const auto& [name, text] : texts_) first.insert(name);
    std::vector<size_t> early, rest;
    for (const auto& z : idx_.entries) (first.count(z.name) ? early : rest).push_back(z.central_index);
    for (size_t i : early) read(i);
    parse_dist_info(opt_.threads > 1 && opt_.depth != Depth::metadata);
    if (opt_.depth == Depth::metadata) {
      f_.metadata_depth = true;
      for (size_t i : rest) read_headers(i);
      std::sort(f_.binaries.begin(), f_.binaries.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
      return;
    }
    // Largest first, so the workers finish together (the two 500 MB libraries of a torch wheel
    // go to two cores at once). Every entry, small ones too: with one reader the order decides
    // which entry the analysis budget runs out in and the order of same-named binaries.
    // Ties keep their order (order_largest_first is stable), in one radix pass over the sizes
    // of 100,000 small entries.
    {
      std::vector<uint64_t> sizes(rest.size());
      for (size_t k = 0; k < rest.size(); ++k) sizes[k] = idx_.entries[rest[k]].compressed_size;
      std::vector<size_t> sorted(rest.size());
      const std::vector<size_t> order = order_largest_first(sizes);
      for (size_t k = 0; k < order.size(); ++k) sorted[k] = rest[order[k]];
      rest = std::move(sorted);
    }
    std::exception_ptr failed;
    try {
      run_workers(rest);
    } catch (...) {
      failed = std::current_exception();
    }
    // The RECORD parsed aside is in the facts whatever the read met: a wheel whose read stopped
    // at its budget is still judged, RECORD and all.
    try {
      take_record();
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
    if (failed) std::rethrow_exception(failed);
    if (first_exception_) std::rethrow_exception(first_exception_);
    finish();
  }

 private:
  void finish() {
    read_other_methods();
    reread_missing();
    std::sort(f_.binaries.begin(), f_.binaries.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    std::sort(f_.python_loaded.begin(), f_.python_loaded.end());
    f_.python_loaded.erase(std::unique(f_.python_loaded.begin(), f_.python_loaded.end()), f_.python_loaded.end());
  }

  // Reads the entries of `rest` on opt_.threads workers, each taking the next in that order.
  void run_workers(const std::vector<size_t>& rest) {
    std::atomic<size_t> next{0};
    auto worker = [&] {
      try {
        for (size_t k; (k = next++) < rest.size();) read(rest[k]);
      } catch (...) {
        next = rest.size();  // the others stop after their current entry
        throw;
      }
    };
    {
      // Whatever a worker throws, std::bad_alloc included, is rethrown here, on the wheel's own
      // thread, inside the per-wheel error boundary: never std::terminate for the whole batch.
      std::deque<GuardedThread> pool;
      for (unsigned t = 1; t < std::max(1u, opt_.threads); ++t) pool.emplace_back(worker);
      std::exception_ptr mine;
      try {
        worker();
      } catch (...) {
        mine = std::current_exception();
      }
      for (auto& t : pool) t.join();
      if (mine) std::rethrow_exception(mine);
      for (auto& t : pool)
        if (t.error()) std::rethrow_exception(t.error());
    }
  }

  // Everything one entry's bytes feed.
  struct Work {
    EntryFacts* e = nullptr;
    // The thread's SHA-256 context, restarted for each entry (start()): a fresh OpenSSL context is
    // two allocations and a provider lookup, 100,000 of them for a wheel of small files.
    ThreadLease<Digest> sha256;
    std::optional<Digest> other;  // sha384/sha512 when RECORD asks for it
    std::string other_algo;
    std::optional<VersionScan> versions;  // a well-known library's version strings (WC904)
    std::string* text = nullptr;          // dist-info files and files a policy reads
    std::optional<BinaryCapture> capture;
    bool capture_pending = false;  // made at the first bytes, only when they are a binary's (data())
    bool scan_python = false;      // a .py file, in a wheel shipping libraries its code may name
    std::string python;            // its text (never more than it declares: data() stops there)
  };

  bool data(Work& w, const uint8_t* p, size_t n) {
    EntryFacts& e = *w.e;
    if (e.bytes_read == 0) e.magic = sniff_binary(p, n, e.name);
    if (n > e.size - e.bytes_read) {  // never more than the entry declares (libarchive's readers do not check)
      e.read_error = "entry inflates past its declared size of " + std::to_string(e.size) + " bytes";
      return false;
    }
    if (w.capture_pending) {
      // A capture sniffs the first 64 bytes (or the whole entry, when shorter) and keeps nothing
      // of an entry they do not show to be a binary. e.magic, sniffed from this first piece just
      // above, is that answer (sniff_binary reads no byte past the 64th), so most entries (Python
      // files) never get a capture; a first piece too short to tell gets one as before.
      w.capture_pending = false;
      if ((n < 64 && n != e.size) || !e.magic.empty()) w.capture.emplace(e.name, e.size);
    }
    e.bytes_read += n;
    w.sha256->update(p, n);
    if (w.other) w.other->update(p, n);
    if (w.versions) w.versions->feed(p, n);
    if (w.text) {
      if (w.text->size() + n > opt_.limits.max_metadata_bytes) {
        std::lock_guard<std::mutex> l(mu_);
        if (!is_sbom_entry(e.name))  // an SBOM too large to read is WC901's finding
          f_.dist_info_read_errors.push_back(e.name + " is larger than the metadata size limit (" +
                                             std::to_string(opt_.limits.max_metadata_bytes) + " bytes); not parsed");
        oversize_.insert(e.name);
        w.text->clear();
        w.text = nullptr;
      } else {
        w.text->append(reinterpret_cast<const char*>(p), n);
      }
    }
    if (w.capture) w.capture->data(p, n);
    if (w.scan_python) w.python.append(reinterpret_cast<const char*>(p), n);
    return true;
  }

  // The stems of the wheel's libraries its Python code names in a string ("libtorchtext",
  // fbgemm_gpu's "fbgemm_gpu_tbe_cache", torchvision's "_C", "lib/libx.so"): every identifier
  // that follows a quote or a slash, looked up whole.
  void find_library_mentions(const std::string& text) {
    std::set<const std::vector<std::string>*> hits;
    auto ident = [](char c) { return is_alnum(c) || c == '_'; };
    // Only a name right after a quote or a slash counts ('libfoo', "x/libfoo"): the scan goes from
    // one of those to the next (find_any_of3, 16 bytes at a time) instead of walking every
    // identifier of the file.
    const std::string_view all(text);
    const auto* bytes = reinterpret_cast<const uint8_t*>(all.data());
    for (size_t q = 0; (q += find_any_of3(bytes + q, all.size() - q, '"', '\'', '/')) < all.size(); ++q) {
      size_t at = q + 1, end = at;
      while (end < all.size() && ident(all[end])) ++end;
      if (end == at || end - at >= stem_lengths_.size() || !stem_lengths_[end - at]) continue;
      if (auto it = library_stems_.find(all.substr(at, end - at)); it != library_stems_.end()) hits.insert(&it->second);
    }
    if (hits.empty()) return;
    std::lock_guard<std::mutex> l(mu_);
    for (const auto* entries : hits) f_.python_loaded.insert(f_.python_loaded.end(), entries->begin(), entries->end());
  }

  // The entries read never yield more than they declare, so the total limit is applied to the
  // declared sizes, in central directory order, before anything is inflated: the same entries are
  // read whatever the number of threads.
  void apply_total_limit() {
    if (!opt_.refuse_over_limits) return;
    ArchiveTotals all;
    for (const auto& z : idx_.entries) all.add(z.uncompressed_size, z.compressed_size);
    wheel_over_ratio_ = opt_.limits.wheel_over_ratio(all.declared, idx_.archive_size);
    uint64_t total = 0;
    for (const auto& z : idx_.entries) {
      if (z.kind != EntryKind::file || !skip_reason(z).empty()) continue;
      total = total + z.uncompressed_size < total ? UINT64_MAX : total + z.uncompressed_size;
      if (total <= opt_.limits.max_total_uncompressed_bytes) continue;
      stop_from_ = z.central_index;
      f_.limit_events.push_back({"total uncompressed size passes the limit of " +
                                     std::to_string(opt_.limits.max_total_uncompressed_bytes) +
                                     " bytes here; this entry and the ones after it are not read",
                                 z.name});
      return;
    }
  }

  // Why an entry is not read at all, or "".
  std::string skip_reason(const ZipEntry& z) const {
    if (z.kind != EntryKind::file) return "not a regular file";
    if (z.overlaps) return "its compressed data overlaps another entry's (zip-bomb shape); not inflated";
    if (z.central_index >= stop_from_) return "reading stopped at the total uncompressed size limit";
    if (wheel_over_ratio_ && ratio(z) > opt_.limits.max_compression_ratio)
      return "the wheel's compression ratio is over the limit and so is this entry's; not inflated";
    return "";
  }

  Work start(size_t i) {
    const ZipEntry& z = idx_.entries[i];
    Work w;
    w.sha256->reset();  // a throw here releases the lease with `w`
    w.e = &f_.entries[i];
    auto algo = other_algos_.find(z.name);
    if (algo != other_algos_.end()) w.other.emplace(algo->second), w.other_algo = algo->second;
    auto text = texts_.find(z.name);
    if (text != texts_.end()) {
      w.text = &text->second;
      // The declared size, up to the limit: one allocation instead of doubling (a 90,000-row RECORD
      // would otherwise peak at three times its size while it grows).
      reserve_filled_once(*w.text,
                          static_cast<size_t>(std::min<uint64_t>(z.uncompressed_size, opt_.limits.max_metadata_bytes)));
    }
    w.capture_pending = opt_.binaries;
    if (!library_stems_.empty() && z.name.ends_with(".py") && z.uncompressed_size <= kMaxPythonScan)
      w.scan_python = true, w.python.reserve(static_cast<size_t>(z.uncompressed_size));
    if (is_native_library_name(z.name) || is_lettered_shared_library_name(z.name))
      if (VersionScan v(z.name); v.active()) w.versions.emplace(std::move(v));
    return w;
  }

  void end(size_t i, Work& w, const std::string& error, bool stopped) {
    EntryFacts& e = *w.e;
    if (!error.empty() && e.read_error.empty()) e.read_error = error;
    if (e.complete()) {
      if (!w.python.empty()) find_library_mentions(w.python);
      e.sha256 = w.sha256->digest_b64();
      if (w.other) e.other_digests[w.other_algo] = w.other->digest_b64();
      if (w.versions) e.version_strings = w.versions->found();
    } else if (w.text) {
      w.text->clear();
    }
    // An entry not read to its end is a WC404 (or a WC403), not a binary to judge.
    if (!w.capture || !e.complete() || stopped) return;
    w.capture->finish();  // sniffs what was too short to sniff while streaming
    if (!w.capture->is_binary()) return;
    std::lock_guard<std::mutex> l(mu_);
    if (w.capture->missing().empty())
      f_.binaries.push_back(w.capture->take());
    else
      pending_.emplace_back(i, std::move(*w.capture));
  }

  void read(size_t i) {
    const ZipEntry& z = idx_.entries[i];
    EntryFacts& e = f_.entries[i];
    BudgetScope scope(current_budget(), z.name);
    if (opt_.before_entry) opt_.before_entry(z.name);
    e.skipped = skip_reason(z);
    if (!e.skipped.empty()) return;
    if (located_ && !locate(i)) return;  // fast_path_supports needs the data offset
    if (!fast_path_supports(z)) {
      std::lock_guard<std::mutex> l(mu_);
      other_methods_.push_back(i);
      return;
    }
    Work w = start(i);
    try {
      EntryRead r = pipelined(z)
                        ? read_pipelined(z, w)
                        : read_entry(src_, z, [&](const uint8_t* p, size_t n, uint64_t) { return data(w, p, n); });
      end(i, w, r.error, r.stopped);
    } catch (const IoError& err) {
      end(i, w, err.what(), false);
      std::lock_guard<std::mutex> l(mu_);
      if (!first_exception_) first_exception_ = std::current_exception();
    }
  }

  // The streamed read: entry i's data offset from its local header; false when there is none to
  // follow there (the usual read then decides).
  bool locate(size_t i) {
    auto at = local_data_offset(src_, idx_.entries[i]);
    if (!at) {
      lost_ = true;
      return false;
    }
    located_->entries[i].data_offset = *at;
    return true;
  }

  // An entry larger than a fair share of the wheel decides how long the whole read takes (a 500 MB
  // library among small files): it is inflated on one core and hashed and scanned on another.
  bool pipelined(const ZipEntry& z) const {
    return opt_.threads > 1 && z.uncompressed_size >= opt_.pipeline_min_bytes &&
           z.uncompressed_size > total_size_ / opt_.threads;
  }

  EntryRead read_pipelined(const ZipEntry& z, Work& w) {
    BlockPipe pipe(4, 1u << 20);
    GuardedThread consumer([&] {
      try {
        while (BlockPipe::Block* b = pipe.take()) {
          bool more = data(w, b->bytes.data(), b->size);
          pipe.done(b);
          if (!more) pipe.close();
        }
      } catch (...) {
        pipe.close();
        throw;
      }
    });
    EntryRead r;
    try {
      r = read_entry(src_, z, [&](const uint8_t* p, size_t n, uint64_t) { return pipe.put(p, n); });
    } catch (...) {
      pipe.close();
      consumer.join();
      throw;
    }
    pipe.finish();
    consumer.join();
    if (consumer.error()) std::rethrow_exception(consumer.error());
    return r;
  }

  // --depth metadata: entries named or marked like binaries give their first bytes to the capture
  // (headers); nothing else is inflated.
  void read_headers(size_t i) {
    const ZipEntry& z = idx_.entries[i];
    EntryFacts& e = f_.entries[i];
    e.skipped = skip_reason(z);
    if (!e.skipped.empty()) return;
    if (!opt_.binaries || !binary_like(z) || !fast_path_supports(z)) {
      e.skipped = "not read at --depth metadata";
      return;
    }
    Work w = start(i);
    w.capture_pending = false;  // read through the capture from the first byte (finish_prefix)
    w.capture.emplace(z.name, z.uncompressed_size);
    bool not_binary = false;
    EntryRead r = read_entry(
        src_, z,
        [&](const uint8_t* p, size_t n, uint64_t off) {
          if (off == 0) e.magic = sniff_binary(p, n, z.name);
          if (off == 0 && e.magic.empty() && !is_native_library_name(z.name)) {
            not_binary = true;  // executable, but a script: nothing more to read
            return false;
          }
          e.bytes_read += n;
          w.sha256->update(p, n);
          w.capture->data(p, n);
          return true;
        },
        kHeaderPrefix);
    if (not_binary) {
      e.bytes_read = 0;
      e.skipped = "not read at --depth metadata";
      return;
    }
    if (!r.error.empty()) {
      e.read_error = r.error;
      return;
    }
    if (e.bytes_read < e.size)
      e.skipped = "only the first " + std::to_string(e.bytes_read) + " bytes read (--depth metadata)";
    else
      e.sha256 = w.sha256->digest_b64();
    w.capture->finish_prefix();
    if (w.capture->is_binary()) f_.binaries.push_back(w.capture->take());
  }

  // A RECORD this large (about 15,000 rows) is parsed beside the entries' read when it may be.
  static constexpr size_t kRecordAsideBytes = 1u << 20;

  // Whether a RECORD text may name a digest other than sha256 ("sha384=", "SHA512=" ...): the
  // digits and the '=' have no case, so a text without "384=", "512=" and quotes names none. Then
  // no entry needs a second digest, and the reading need not wait for the rows.
  // A quote anywhere may join what the raw text splits (csv reads `"sha512"=x` as sha512=x).
  // memmem, not string_view::find: find stops at every '3' and '5' of the base64 digests (a
  // 100,000-row RECORD holds 200,000 of them), 5 ms before the read could start.
  static bool may_name_other_digests(std::string_view text) {
    auto holds = [&](std::string_view needle) {
      return memmem(text.data(), text.size(), needle.data(), needle.size()) != nullptr;
    };
    return text.find('"') != std::string_view::npos || holds("384=") || holds("512=");
  }

  // The RECORD parsed beside the read (parse_dist_info), into the facts once the read is done.
  void take_record() {
    if (!record_thread_) return;
    record_thread_->join();
    if (record_thread_->error()) std::rethrow_exception(record_thread_->error());
    f_.record = std::move(record_aside_);
    record_thread_.reset();
  }

  // The text of WHEEL, METADATA and RECORD (read first): RECORD names the digests to compute.
  // With `record_aside`, a large RECORD that names no other digest is parsed on a thread of its
  // own while the other entries are read (take_record brings it in); the read needs nothing of
  // it, and a 100,000-row RECORD is 40 ms of parsing. A refused thread parses it here.
  void parse_dist_info(bool record_aside = false) {
    auto read_ok = [&](const std::string& name) {
      const EntryFacts* e = f_.find_entry(name);
      return e && e->complete() && !oversize_.count(name);
    };
    if (!f_.dist_info.empty()) {
      if (read_ok(f_.dist_info + "/WHEEL")) f_.wheel_file = parse_header_file(texts_[f_.dist_info + "/WHEEL"]);
      if (read_ok(f_.dist_info + "/METADATA")) f_.metadata = parse_header_file(texts_[f_.dist_info + "/METADATA"]);
      const std::string record = f_.dist_info + "/RECORD";
      if (read_ok(record)) {
        std::string& text = texts_[record];
        if (record_aside && text.size() >= kRecordAsideBytes && !may_name_other_digests(text)) try {
            record_text_ = std::move(text);
            record_thread_.emplace([this] {
              record_aside_ = parse_record(record_text_);
              std::string().swap(record_text_);  // its bytes go as soon as the rows are made
            });
          } catch (const std::system_error&) {
            text = std::move(record_text_);
            record_thread_.reset();
          }
        if (!record_thread_) f_.record = parse_record(text);
      }
    }
    for (auto& [name, text] : texts_)
      if (read_ok(name) && !name.ends_with("/WHEEL") && !name.ends_with("/METADATA") && !name.ends_with("/RECORD"))
        f_.captured[name] = std::move(text);
    // PEP 825's declaration, parsed once into the facts (rules, the release set, inspect and
    // wheelsmoke read it from there).
    if (!f_.dist_info.empty()) {
      const std::string vj = f_.dist_info + "/variant.json";
      if (auto it = f_.captured.find(vj); it != f_.captured.end()) {
        f_.variant = parse_variant_document(it->second);
        f_.captured.erase(it);
      } else if (f_.find_entry(vj)) {
        f_.variant.emplace().errors.push_back(
            "variant.json could not be read (over the metadata size limit, or unreadable)");
      }
    }
    read_sboms();
    if (!f_.record && !record_thread_) return;
    // The dist-info texts are parsed: their bytes are not needed any more (the keys stay, so a
    // duplicate entry of the same name is still recognised as one of them).
    for (auto& [name, text] : texts_) std::string().swap(text);
    if (!f_.record) return;  // parsed aside: it names no other digest
    for (const auto& row : f_.record->rows) {
      // Only sha384/sha512 rows need a second digest. Those names are six bytes before the first
      // '=', the fourth a digit '3' or '5' (no case): the common "sha256=" row is passed over at that
      // digit, with no comparison of its name.
      const std::string_view h = row.hash;
      if (h.size() < 7 || h[6] != '=' || (h[3] != '3' && h[3] != '5')) continue;
      std::string_view algo = h.substr(0, 6);  // a '=' before the sixth byte: no name below matches
      if (iequals(algo, "sha384") || iequals(algo, "sha512")) other_algos_[std::string(row.path)] = to_lower(algo);
    }
  }

  // PEP 770's SBOMs, parsed into the facts; what cannot be read is a document with the reason. The
  // files they give digests for (other than sha256, which every entry gets) are digested on the
  // way too, so WC904 can compare them.
  void read_sboms() {
    for (const auto& z : idx_.entries) {
      if (!is_sbom_entry(z.name) || z.kind != EntryKind::file) continue;
      if (!texts_.count(z.name) && !over_budget_.count(z.name)) continue;
      const EntryFacts* e = f_.find_entry(z.name);
      auto it = f_.captured.find(z.name);
      if (it != f_.captured.end()) {
        f_.sboms.push_back(parse_sbom(z.name, it->second));
        f_.captured.erase(it);
      } else {
        SbomDocument d;
        d.entry = z.name;
        if (over_budget_.count(z.name))
          d.errors.push_back("not read: with its " + human_bytes(z.uncompressed_size) +
                             ", the wheel's SBOMs would pass " + human_bytes(sbom_budget_bytes()) +
                             " together (4 x limits.max_metadata_bytes)");
        else if (oversize_.count(z.name))
          d.errors.push_back("not read: " + human_bytes(z.uncompressed_size) + ", over the size limit of " +
                             human_bytes(opt_.limits.max_metadata_bytes) + " (limits.max_metadata_bytes)");
        else if (e && !e->read_error.empty())
          d.errors.push_back("not read: " + e->read_error);
        else
          d.errors.push_back("not read: " + (e && !e->skipped.empty() ? e->skipped : std::string("unreadable")));
        f_.sboms.push_back(std::move(d));
      }
    }
    // Only a component's own files carry its hashes (a package's are not the files it contains).
    for (const auto& d : f_.sboms)
      for (const auto& c : d.components) {
        if (c.locations.empty() ||
            std::any_of(c.hashes.begin(), c.hashes.end(), [](const SbomHash& h) { return h.algorithm == "sha256"; }))
          continue;
        auto h = std::find_if(c.hashes.begin(), c.hashes.end(), [](const SbomHash& h) {
          return h.algorithm == "sha1" || h.algorithm == "sha384" || h.algorithm == "sha512";
        });
        if (h == c.hashes.end()) continue;
        for (const auto& loc : c.locations)
          if (f_.find_entry(loc)) other_algos_.emplace(loc, h->algorithm);
      }
  }

  // Compression methods the fast path does not handle (PyPI rejects them; WC405 says so): read
  // through libarchive, which knows more of them.
  void read_other_methods() {
    if (other_methods_.empty()) return;
    std::map<size_t, Work> works;
    std::map<size_t, EntrySink> sinks;
    for (size_t i : other_methods_) {
      works.emplace(i, start(i));
      Work* w = &works.at(i);
      sinks[i] = [this, w](const uint8_t* p, size_t n, uint64_t) { return data(*w, p, n); };
    }
    auto errors = read_entries(src_, idx_, sinks);
    for (auto& [i, w] : works) {
      auto err = errors.find(i);
      std::string error = err != errors.end()            ? err->second
                          : w.e->bytes_read != w.e->size ? "entry data ends early"
                                                         : "";
      end(i, w, error, false);
    }
  }

  // Binaries whose layout the single pass could not plan (program headers after the dynamic
  // section): one more streaming pass with the plan known, then targeted reads of whatever is
  // still missing (up to where the last missing range ends). All counted in reinflated_bytes.
  void reread_missing() {
    for (auto& [i, first] : pending_) {
      uint64_t got = 0;
      auto count = [&](uint64_t n) { got += n; };
      BinaryCapture capture = first.second_pass();
      auto errors = read_entries(src_, idx_, {{i, [&](const uint8_t* p, size_t n, uint64_t) {
                                                 count(n);
                                                 capture.data(p, n);
                                                 return true;
                                               }}});
      std::string failure = errors.empty() ? "" : "second read failed: " + errors.begin()->second;
      bool done = failure.empty() && capture.finish();
      // Then targeted reads while each one brings structures not seen before: a parse never
      // depends on a fixed number of reads. Each missing range is widened (neighbouring import
      // names, string tables) so one read serves many; a round that asks for what the last one
      // already fetched has made no progress, and that is the report.
      std::vector<ByteRange> asked;
      for (int round = 0; !done && failure.empty(); ++round) {
        std::vector<ByteRange> missing = capture.missing();
        for (auto& r : missing)
          r.len = std::min(std::max<uint64_t>(r.len, kRereadWindow),
                           idx_.entries[i].uncompressed_size - std::min(r.off, idx_.entries[i].uncompressed_size));
        bool progress = std::any_of(missing.begin(), missing.end(), [&](const ByteRange& m) {
          return std::none_of(asked.begin(), asked.end(),
                              [&](const ByteRange& a) { return m.off >= a.off && m.end() <= a.end(); });
        });
        // Bounded all the same: a hostile chain of pointers cannot make a binary cost more than a
        // few times its size in re-inflated bytes.
        const uint64_t budget = 4 * idx_.entries[i].uncompressed_size + (64u << 20);
        if (!progress || round >= kMaxRereads || got > budget) {
          failure = "structures at offset " + std::to_string(missing.empty() ? 0 : missing.front().off) +
                    " still out of reach after " + std::to_string(round + 1) + " more reads" +
                    (got > budget ? " (the re-read budget of " + std::to_string(budget) + " bytes is spent)" : "");
          break;
        }
        asked.insert(asked.end(), missing.begin(), missing.end());
        uint64_t upto = 0;
        for (const auto& r : missing) upto = std::max(upto, r.end());
        errors = read_entries(src_, idx_, {{i, [&](const uint8_t* p, size_t n, uint64_t off) {
                                              count(n);
                                              for (const auto& m : missing) {
                                                uint64_t lo = std::max(m.off, off), hi = std::min(m.end(), off + n);
                                                if (lo < hi) capture.add(lo, p + (lo - off), hi - lo);
                                              }
                                              return off + n < upto;
                                            }}});
        if (!errors.empty())
          failure = "second read failed: " + errors.begin()->second;
        else
          done = capture.finish();
      }
      f_.reinflated_bytes += got;
      BinaryFacts b = capture.take();
      if (!failure.empty()) b.errors.push_back(failure);
      f_.binaries.push_back(std::move(b));
    }
    pending_.clear();
  }

  // A safety bound only: every layout seen needs one or two targeted reads, and a round that brings
  // nothing new stops the loop long before this.
  static constexpr int kMaxRereads = 64;
  static constexpr size_t kMaxSboms = 64;  // documents read per wheel (the rest are counted by WC901)
  static constexpr uint64_t kRereadWindow = 256u << 10;
  static constexpr uint64_t kMaxPythonScan = 4u << 20;  // a .py file larger than this is no loader
  static constexpr uint64_t kHeaderPrefix = 64u << 10;  // read of each binary at --depth metadata

  Source& src_;
  const ZipIndex& idx_;
  WheelFacts& f_;
  const AnalyzeOptions& opt_;
  std::mutex mu_;
  size_t stop_from_ = SIZE_MAX;    // entries from here on are not read (total size limit)
  bool wheel_over_ratio_ = false;  // the whole-archive ratio limit trips: entries over the ratio stay packed
  // The SBOM texts held at once, by their declared sizes (never exceeded while reading) in archive
  // order: 64 documents of 16 MiB each cannot hold a gigabyte. Those past the budget are not read.
  uint64_t sbom_budget_bytes() const { return 4 * opt_.limits.max_metadata_bytes; }
  std::set<std::string> over_budget_;
  std::map<std::string, std::string> texts_ = [&] {
    std::map<std::string, std::string> t;
    if (!f_.dist_info.empty())
      for (const char* name : {"WHEEL", "METADATA", "RECORD"}) t[f_.dist_info + "/" + name];
    for (const auto& p : opt_.capture_files) t[p];
    // What the upload rules read (WC208, WC209): the entry points, and .pth files at the top
    // level of purelib/platlib (site-packages processes those at start-up).
    if (!f_.dist_info.empty()) t[f_.dist_info + "/entry_points.txt"], t[f_.dist_info + "/variant.json"];
    size_t sboms = 0;
    uint64_t sbom_bytes = 0;
    for (const auto& z : idx_.entries) {
      if (is_site_pth(z.name)) t[z.name];
      if (!is_sbom_entry(z.name) || z.kind != EntryKind::file || sboms++ >= kMaxSboms) continue;
      // One over the size limit is dropped while it streams (WC901 says so), never held whole.
      if (z.uncompressed_size > opt_.limits.max_metadata_bytes) {
        t[z.name];
      } else if (sbom_bytes + z.uncompressed_size <= sbom_budget_bytes()) {
        sbom_bytes += z.uncompressed_size;
        t[z.name];
      } else {
        over_budget_.insert(z.name);
      }
    }
    f_.sboms_not_read = sboms > kMaxSboms ? sboms - kMaxSboms : 0;
    return t;
  }();
  // The stems ("libtorchtext") of the native libraries the wheel ships that are no extension
  // module of one interpreter, each with the entries of that stem: what its Python code may load
  // by name.
  std::map<std::string, std::vector<std::string>, std::less<>> library_stems_ = [&] {
    std::map<std::string, std::vector<std::string>, std::less<>> out;
    for (const auto& z : idx_.entries) {
      if (z.kind != EntryKind::file || !is_native_library_name(z.name)) continue;
      if (auto suffix = extension_suffix(z.name); suffix && suffix->python_extension && !suffix->abi.empty()) continue;
      std::string_view base = last_component(z.name);
      std::string stem(base.substr(0, base.find('.')));
      if (stem.size() >= 2) out[stem].push_back(z.name);
    }
    return out;
  }();
  std::bitset<128> stem_lengths_ = [&] {
    std::bitset<128> m;
    for (const auto& [stem, entries] : library_stems_)
      if (stem.size() < m.size()) m.set(stem.size());
    return m;
  }();
  ZipIndex* located_ = nullptr;    // the streamed read: where each entry's data offset is written
  std::atomic<bool> lost_{false};  // a local header could not be followed while streaming
  std::map<std::string, std::string> other_algos_;
  // A RECORD parsed beside the read (parse_dist_info): its text, the rows, the thread (declared
  // last of the three: it is joined before the others go).
  std::string record_text_;
  RecordFile record_aside_;
  std::optional<GuardedThread> record_thread_;
  std::set<std::string> oversize_;
  std::vector<size_t> other_methods_;
  std::vector<std::pair<size_t, BinaryCapture>> pending_;
  std::exception_ptr first_exception_;
  uint64_t total_size_ = [&] {
    uint64_t t = 0;
    for (const auto& z : idx_.entries) t = t + z.uncompressed_size < t ? UINT64_MAX : t + z.uncompressed_size;
    return t;
  }();
};

}  // namespace

namespace {

// The first excess of the wheel's memory budget, wherever it was caught, is its WC403 (only the
// readers charge).
void note_first_excess(const MemoryBudget& budget, WheelFacts& f) {
  if (!budget.exceeded()) return;
  auto [message, entry] = budget.first_excess();
  f.limit_events.push_back({message, entry});
}

// A wheel whose bytes are still streaming in (a remote full read), read as they arrive: the
// central directory first (the source fetches the file's end by range meanwhile), then every entry
// in file order as its bytes land, each data offset taken from its local header there. Once the
// last byte is in, the full index (local headers, data descriptors, overlaps, gaps: the installer's
// view) is read as for any wheel, and must agree with what was used: the same data offsets and the
// same overlapping entries. Then its findings are the wheel's; otherwise (an archive whose local
// headers disagree, a zip-bomb layout, a transfer that failed, a budget passed) false, and the
// caller reads the wheel the usual way, from the bytes now at hand. Either way the facts are the
// usual read's.
bool analyze_while_streaming(Source& src, const AnalyzeOptions& opt, WheelFacts& f) {
  MemoryBudget budget(opt.limits.max_analysis_bytes);
  BudgetScope scope(&budget, "");
  ZipIndex idx, full;
  try {
    idx = read_zip_index(src, [](const ZipEntry&) { return false; });
    if (!idx.ok() || (opt.refuse_over_limits && idx.entries.size() > opt.limits.max_entries)) return false;
    index_to_facts(idx, f);
    WheelReader reader(src, idx, f, opt, true);
    if (!reader.stream_pass()) return false;
    full = read_zip_index(src);
    if (!full.ok() || full.entries.size() != idx.entries.size()) return false;
    for (size_t i = 0; i < idx.entries.size(); ++i)
      if (full.entries[i].overlaps != idx.entries[i].overlaps ||
          (reader.located(i) && full.entries[i].data_offset != idx.entries[i].data_offset))
        return false;
    for (size_t i = 0; i < idx.entries.size(); ++i) idx.entries[i].data_offset = full.entries[i].data_offset;
    reader.finish_streamed();
  } catch (...) {
    // A failed transfer, a budget passed, anything: the usual read meets the same (the spool keeps
    // the transfer's error) and says it the usual way.
    return false;
  }
  index_to_problems(full, f);  // the layout's findings are the full index's
  note_first_excess(budget, f);
  return true;
}

void analyze_into(Source& src, const AnalyzeOptions& opt, WheelFacts& f) {
  if (opt.depth == Depth::full && src.streams_in_order()) {
    WheelFacts streamed;  // what analyze_wheel set before (a failed try leaves nothing behind in f)
    streamed.path = f.path;
    streamed.file_size = f.file_size;
    streamed.filename = f.filename;
    if (analyze_while_streaming(src, opt, streamed)) {
      f = std::move(streamed);
      return;
    }
  }
  // One budget per wheel, charged by every reader on every thread that reads this wheel.
  MemoryBudget budget(opt.limits.max_analysis_bytes);
  BudgetScope scope(&budget, "");
  ZipIndex idx;
  try {
    if (opt.depth == Depth::metadata)
      idx = read_zip_index(
          src, [&](const ZipEntry& z) { return read_at_metadata_depth(z, opt); },
          [&](const ZipEntry& z) { return metadata_depth_data(z, opt); });
    else
      idx = read_zip_index(src);
  } catch (const IoError& e) {
    f.unreadable.push_back({e.what(), "", 0});
    return;
  }
  index_to_facts(idx, f);
  if (!idx.ok()) return;
  if (opt.refuse_over_limits && idx.entries.size() > opt.limits.max_entries) {
    // WC403 reports the count from the central directory; nothing is inflated.
    for (auto& e : f.entries) e.skipped = "entry count over the limit";
    return;
  }
  try {
    WheelReader(src, idx, f, opt).run();
  } catch (const IoError& e) {
    f.unreadable.push_back({e.what(), "", 0});
  } catch (const BudgetExceeded&) {
    // Reported below: the readers' catch blocks may have taken it first.
  }
  note_first_excess(budget, f);
}

}  // namespace

WheelFacts analyze_wheel(Source& src, const AnalyzeOptions& opt) {
  WheelFacts f;
  f.path = src.display_name();
  f.file_size = src.size();
  f.filename = parse_wheel_filename(target_basename(f.path));
  analyze_into(src, opt, f);
  src.settle();
  f.content_sha256 = src.content_sha256();
  f.bytes_read = src.bytes_read();
  f.http_requests = src.requests();
  f.http_connections = src.connections();
  return f;
}

WheelFacts analyze_target(const std::string& path, const AnalyzeOptions& opt) {
  std::unique_ptr<Source> src;
  try {
    src = open_source(path, opt.depth == Depth::full ? ReadPlan::whole : ReadPlan::ranges, opt.hash_body);
  } catch (const IoError& e) {
    WheelFacts f;
    f.path = display_url(path);
    f.filename = parse_wheel_filename(target_basename(path));
    f.unreadable.push_back({e.what(), "", 0});
    return f;
  }
  return analyze_wheel(*src, opt);
}

WheelFacts analyze_index_metadata(const TargetRef& t, const AnalyzeOptions& opt) {
  WheelFacts f;
  f.path = display_url(t.location);
  f.filename = parse_wheel_filename(target_basename(t.location));
  f.metadata_depth = f.from_index_metadata = true;
  if (f.filename.valid) f.dist_info = escape_name(f.filename.name) + "-" + f.filename.version_text + ".dist-info";
  std::string body;
  try {
    body = http_get(t.metadata_url, "", opt.limits.max_metadata_bytes);
  } catch (const IoError& e) {
    f.unreadable.push_back({std::string("the index's core metadata: ") + e.what(), "", 0});
    return f;
  }
  f.bytes_read = body.size();
  if (!t.metadata_sha256.empty()) {
    Digest d("sha256");
    d.update(body.data(), body.size());
    std::string got = d.digest_hex();
    if (got != to_lower(t.metadata_sha256)) {
      f.unreadable.push_back({"the core metadata served at " + display_url(t.metadata_url) + " has sha256 " + got +
                                  "; the index says " + clip_for_display(t.metadata_sha256, 80),
                              "", 0});
      return f;
    }
  }
  f.metadata = parse_header_file(body);
  return f;
}

AnalyzeOptions analyze_options_for(const Policy& p) {
  AnalyzeOptions opt;
  opt.limits = p.limits;
  if (p.cuda.version_file) opt.capture_files.push_back(p.cuda.version_file->path);
  opt.refuse_over_limits = p.severity_of("WC403", Severity::error) != Severity::off;
  return opt;
}

const EntryFacts* WheelFacts::find_entry(std::string_view name) const {
  if (entry_index_.size() > entries.size() || (entry_index_.empty() && !entries.empty())) {  // not indexed: scan
    for (const auto& e : entries)
      if (e.name == name) return &e;
    return nullptr;
  }
  const size_t* at = entry_index_.find(name);
  return at ? &entries[*at] : nullptr;
}

struct WheelFacts::InstallPaths {
  std::once_flag once;
  std::unordered_set<std::string> paths;
};

void WheelFacts::reindex() {
  entry_index_ = ViewMap<size_t>(entries.size());
  HashesAhead hashes(
      entries.size(), [&](size_t i) { return entry_index_.hash(entries[i].name); },
      [&](uint64_t h) { entry_index_.prefetch(h); });
  for (size_t i = 0; i < entries.size(); ++i) entry_index_.try_emplace_hashed(entries[i].name, hashes.at(i), i);
  install_paths_ = std::make_unique<InstallPaths>();
  entries_parked_ = false;
}

void WheelFacts::park_entries() {
  std::vector<EntryFacts>().swap(entries);
  entry_index_ = ViewMap<size_t>();
  install_paths_ = std::make_unique<InstallPaths>();  // as many names as the entries: built again when asked
  entries_parked_ = true;
}

void WheelFacts::unpark_entries(std::vector<EntryFacts> e) {
  entries = std::move(e);
  reindex();
}

bool WheelFacts::installs(const std::string& path) const {
  if (!install_paths_) return false;
  // Parked, the entries are not there to answer: a bug to surface, never a verdict.
  if (entries_parked_) throw std::logic_error(this->path + ": installs() asked while its entries are parked");
  std::call_once(install_paths_->once, [&] {
    for (const auto& e : entries) {
      if (e.kind == EntryKind::directory) continue;
      // Site-packages paths, and the data scheme's as "<data>/path" (what binaries reach through
      // $ORIGIN/../lib from .data/data/bin, or $ORIGIN/../../../../lib from site-packages).
      auto t = install_target_view(e.name);
      if (!t || !(t->library() || t->scheme == "data")) continue;
      if (std::string key = t->key(); !key.empty()) install_paths_->paths.insert(std::move(key));
    }
  });
  return install_paths_->paths.count(path) > 0;
}

WheelFacts::WheelFacts() = default;
WheelFacts::~WheelFacts() = default;
WheelFacts::WheelFacts(WheelFacts&&) noexcept = default;
WheelFacts& WheelFacts::operator=(WheelFacts&&) noexcept = default;

}  // namespace wc
