// Byte sources a wheel is read from: a local file (pread) or, for URLs, HTTP range requests.
// Everything above this interface (zip index, libarchive streaming) is agnostic of where bytes live.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wc {

class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Source {
 public:
  virtual ~Source() = default;
  virtual uint64_t size() const = 0;
  // Reads up to n bytes at off; returns the count (short only at end of data). Throws IoError.
  virtual size_t read_at(uint64_t off, void* buf, size_t n) = 0;
  virtual const std::string& display_name() const = 0;
  // Bytes moved from where the wheel lives so far (file reads; bytes transferred over HTTP).
  virtual uint64_t bytes_read() const { return 0; }
  // HTTP requests made and new connections opened for them (0 for local files).
  virtual uint64_t requests() const { return 0; }
  virtual uint64_t connections() const { return 0; }
  // Ends what is still in flight once the reader is done (a streamed body whose last bytes arrived
  // before its transfer was counted, or one no longer needed), so the costs above are final.
  virtual void settle() {}
  // The sha256 (lower-case hex) of the whole file when its bytes all streamed past in order (a
  // remote full read hashes the body as it arrives, at no second pass); "" otherwise. Final once
  // settle() returned.
  virtual std::string content_sha256() const { return ""; }
  // Whether the bytes are still arriving in order, from the first (a remote full read streaming its
  // body): a reader that takes entries in file order can work on each as it lands instead of
  // waiting for the last byte. Reads past what has arrived wait for it.
  virtual bool streams_in_order() const { return false; }

  // A hint from the reader (a no-op for local files): byte ranges [first, second) about to be read.
  // A remote source fetches them together, coalesced and in parallel.
  virtual void prefetch(const std::vector<std::pair<uint64_t, uint64_t>>& ranges) { (void)ranges; }

  std::vector<uint8_t> read_exact(uint64_t off, size_t n);
};

class FileSource : public Source {
 public:
  explicit FileSource(std::string path);  // throws IoError naming the path
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  uint64_t size() const override { return size_; }
  size_t read_at(uint64_t off, void* buf, size_t n) override;
  const std::string& display_name() const override { return path_; }
  uint64_t bytes_read() const override { return read_; }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  std::atomic<uint64_t> read_{0};
};

// Bytes held in memory (tests, fuzzing, small downloads).
class MemorySource : public Source {
 public:
  MemorySource(std::string name, std::vector<uint8_t> data)
      : name_(std::move(name)), data_(std::make_shared<std::vector<uint8_t>>(std::move(data))) {}
  uint64_t size() const override { return data_->size(); }
  size_t read_at(uint64_t off, void* buf, size_t n) override;
  const std::string& display_name() const override { return name_; }

 private:
  std::string name_;
  std::shared_ptr<std::vector<uint8_t>> data_;
};

}  // namespace wc

namespace wc {
// How a remote wheel will be read: a few planned ranges (metadata depth, one container), or all
// of it (a full check: the body is streamed once, in order, and every read is served from it).
enum class ReadPlan { ranges, whole };
// A FileSource for paths, an HttpSource for http(s):// URLs. Throws IoError. `hash_body`: a remote
// body read whole is hashed as it arrives (content_sha256(): WC407 holds it against the index's
// digest, PEP 740 provenance against the attestation's); false when nothing will ask, which spares
// a SHA-256 pass over the whole file (0.3 CPU-s for torch's 539 MB).
std::unique_ptr<Source> open_source(const std::string& target, ReadPlan plan = ReadPlan::ranges, bool hash_body = true);
// One whole HTTP GET (index pages, PEP 658 metadata); throws IoError naming the URL on any failure
// or status != 200 (after the retries).
std::string http_get(const std::string& url, const std::string& accept, uint64_t cap);

// How HTTP requests behave. Defaults from WHEELCHECK_HTTP_TIMEOUT and WHEELCHECK_HTTP_RETRIES.
// Every remote read is bounded in time: a stall (under 1 KiB/s for timeout_seconds), one request
// (request_seconds, however fast the bytes drip), and everything read for one wheel or one index
// page, retries and backoff included (wheel_seconds).
struct HttpOptions {
  unsigned timeout_seconds = 60;  // connect timeout, and how long a transfer may stall (WHEELCHECK_HTTP_TIMEOUT)
  unsigned retries = 3;  // for 429/5xx and dropped or stalled transfers, with backoff (WHEELCHECK_HTTP_RETRIES)
  unsigned request_seconds = 120;     // one request, start to end (WHEELCHECK_HTTP_REQUEST_TIMEOUT)
  unsigned wheel_seconds = 300;       // one wheel or index page, all requests (WHEELCHECK_HTTP_WHEEL_TIMEOUT)
  uint64_t index_max_links = 100000;  // wheel links kept from one index page (WHEELCHECK_INDEX_MAX_LINKS)
  uint64_t coalesce_gap =
      64u << 10;                 // planned ranges closer than this go in one request (WHEELCHECK_HTTP_COALESCE_GAP)
  unsigned max_connections = 4;  // parallel requests to one host (WHEELCHECK_HTTP_CONNECTIONS)
};
void set_http_options(const HttpOptions& o);  // before any request (not thread-safe)
const HttpOptions& http_options();
// The URL without any user:password@ part (for messages and reports).
std::string display_url(const std::string& url);
}  // namespace wc
