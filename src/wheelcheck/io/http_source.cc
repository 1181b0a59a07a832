// Wheels behind http(s):// URLs (libcurl). A metadata-depth look at a remote wheel fetches the
// central directory, then the dist-info files and the first bytes of its binaries, planned from
// the directory: near ranges coalesced into one request, the rest sent in parallel over a bounded
// number of shared connections (HTTP/2 multiplexed where the server offers it). A full check
// streams the body once, in order, into an unnamed spool file, and every read is served from
// there: no range per entry, no byte fetched twice. Unplanned
// reads are sized to what is read (32 KiB, growing while reads are sequential), fetched spans are
// cached (LRU, bounded), every reply is checked (status, the Content-Range it claims, the body
// length), transient failures are retried with backoff, and a stalled transfer ends at the
// configured timeout. Credentials come from ~/.netrc (or $NETRC) and
// WHEELCHECK_HTTP_AUTHORIZATION; URLs are shown without any user:password part, and header values
// are never shown.
#include <curl/curl.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "io/source.h"
#include "util/digest.h"
#include "util/parse.h"
#include "util/scratch_file.h"
#include "util/strings.h"

namespace wc {
namespace {

constexpr uint64_t kMinRequest = 32u << 10;
constexpr uint64_t kMaxRequest = 8u << 20;
constexpr uint64_t kCacheBytes = 64u << 20;
constexpr uint64_t kMaxWholeDownload = 1ull << 30;  // servers that ignore Range: whole file, at most this
constexpr uint64_t kMinTailSource = 8u << 20;       // smaller bodies stream whole before their end is read

void curl_global() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// A libcurl share with a lock per kind of data (shared by every worker thread).
struct Share {
  std::mutex locks[CURL_LOCK_DATA_LAST];
  CURLSH* handle = nullptr;
  explicit Share(bool connections) {
    curl_global();
    handle = curl_share_init();
    if (!handle) return;
    curl_share_setopt(handle, CURLSHOPT_USERDATA, this);
    curl_share_setopt(
        handle, CURLSHOPT_LOCKFUNC,
        +[](CURL*, curl_lock_data d, curl_lock_access, void* self) { static_cast<Share*>(self)->locks[d].lock(); });
    curl_share_setopt(
        handle, CURLSHOPT_UNLOCKFUNC,
        +[](CURL*, curl_lock_data d, void* self) { static_cast<Share*>(self)->locks[d].unlock(); });
    curl_share_setopt(handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    if (connections) curl_share_setopt(handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
  }
};

// One share for the whole run: the connection cache, DNS answers and TLS sessions are reused
// across requests and across the wheels of one host (an index page, then its wheels), so a remote
// check does not open a TCP and TLS connection per request.
CURLSH* run_share() {
  static Share share(true);
  return share.handle;
}

// For parallel requests: DNS answers and TLS sessions shared with the run, connections kept per
// thread in a multi handle of its own (reused across the wheels that thread reads); a shared
// connection cache would run a multi handle's transfers one after another.
CURLSH* parallel_share() {
  static Share share(false);
  return share.handle;
}

struct MultiPool {
  CURLM* m = nullptr;
  MultiPool() : m(curl_multi_init()) {}
  ~MultiPool() {
    if (m) curl_multi_cleanup(m);
  }
  MultiPool(const MultiPool&) = delete;
  MultiPool& operator=(const MultiPool&) = delete;
};

// An easy handle kept for the requests of one wheel (used by one thread at a time), with what it
// cost: requests made, new connections opened.
struct Connection {
  CURL* handle = nullptr;
  std::atomic<uint64_t> requests{0}, connections{0};  // read by the reporting thread
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() {
    if (handle) curl_easy_cleanup(handle);
  }
};

HttpOptions& options() {
  static HttpOptions o = [] {
    HttpOptions d;
    if (const char* t = std::getenv("WHEELCHECK_HTTP_TIMEOUT"))
      if (auto v = parse_decimal(t, 3600); v && *v > 0) d.timeout_seconds = static_cast<unsigned>(*v);
    if (const char* r = std::getenv("WHEELCHECK_HTTP_RETRIES"))
      if (auto v = parse_decimal(r, 10)) d.retries = static_cast<unsigned>(*v);
    if (const char* t = std::getenv("WHEELCHECK_HTTP_REQUEST_TIMEOUT"))
      if (auto v = parse_decimal(t, 86400); v && *v > 0) d.request_seconds = static_cast<unsigned>(*v);
    if (const char* t = std::getenv("WHEELCHECK_HTTP_WHEEL_TIMEOUT"))
      if (auto v = parse_decimal(t, 86400); v && *v > 0) d.wheel_seconds = static_cast<unsigned>(*v);
    if (const char* t = std::getenv("WHEELCHECK_INDEX_MAX_LINKS"))
      if (auto v = parse_decimal(t, 100000000); v && *v > 0) d.index_max_links = *v;
    if (const char* t = std::getenv("WHEELCHECK_HTTP_COALESCE_GAP"))
      if (auto v = parse_decimal(t, 1ull << 30)) d.coalesce_gap = *v;
    if (const char* t = std::getenv("WHEELCHECK_HTTP_CONNECTIONS"))
      if (auto v = parse_decimal(t, 64); v && *v > 0) d.max_connections = static_cast<unsigned>(*v);
    return d;
  }();
  return o;
}

struct Reply {
  long status = 0;
  std::string body;
  std::string content_range;
  uint64_t cap = 0;
  bool too_big = false;
  CURLcode code = CURLE_OK;
  // Why a timed-out transfer ended, and what each attempt saw (for the message).
  enum class Limit { none, stall, request, wheel } limit = Limit::none;
  double seconds = 0;
  std::vector<std::string> attempts;
  // Streamed replies: the body goes to `sink` (offset in the file, bytes) instead of `body`; the
  // offset starts where the reply's Content-Range says (0 for a 200). False aborts the transfer.
  std::function<bool(uint64_t, const char*, size_t)> sink;
  bool sink_started = false;
  uint64_t sink_at = 0, streamed = 0;
  long status_seen = 0;  // from the status line, before the body arrives
};

using Clock = std::chrono::steady_clock;

std::string rate_text(uint64_t bytes, double seconds) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%llu bytes in %.1f s, %.1f KiB/s", static_cast<unsigned long long>(bytes), seconds,
                seconds > 0 ? double(bytes) / 1024.0 / seconds : 0.0);
  return buf;
}

// What one attempt saw, in words: the line a retry history is made of.
std::string attempt_text(const Reply& r) {
  switch (r.limit) {
    case Reply::Limit::stall:
      return r.body.empty() ? "no bytes for " + std::to_string(options().timeout_seconds) + " s"
                            : "under 1 KiB/s for " + std::to_string(options().timeout_seconds) + " s (" +
                                  rate_text(r.body.size(), r.seconds) + ")";
    case Reply::Limit::request:
      return "still transferring at the " + std::to_string(options().request_seconds) + " s limit per request (" +
             rate_text(r.body.size(), r.seconds) + ")";
    case Reply::Limit::wheel:
      return "the time limit for this wheel ran out (" + rate_text(r.body.size(), r.seconds) + ")";
    case Reply::Limit::none: break;
  }
  if (r.code != CURLE_OK) return curl_easy_strerror(r.code);
  return "HTTP " + std::to_string(r.status);
}

// "bytes LO-HI/TOTAL" -> (lo, hi, total); nullopt when it does not parse.
struct ContentRange {
  uint64_t lo = 0, hi = 0, total = 0;
};
std::optional<ContentRange> parse_content_range(std::string_view v) {
  if (v.rfind("bytes ", 0) != 0) return std::nullopt;
  v.remove_prefix(6);
  auto dash = v.find('-'), slash = v.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || slash < dash) return std::nullopt;
  auto lo = parse_decimal(v.substr(0, dash), 1ull << 48),
       hi = parse_decimal(v.substr(dash + 1, slash - dash - 1), 1ull << 48),
       total = parse_decimal(v.substr(slash + 1), 1ull << 48);
  if (!lo || !hi || !total || *lo > *hi || *hi >= *total) return std::nullopt;
  return ContentRange{*lo, *hi, *total};
}

size_t on_body(char* p, size_t sz, size_t n, void* ud) {
  auto* r = static_cast<Reply*>(ud);
  if (r->sink) {
    if (!r->sink_started) {
      r->sink_started = true;
      if (r->status_seen == 206) {
        auto cr = parse_content_range(r->content_range);
        if (!cr) return 0;  // the caller names the unreadable Content-Range
        r->sink_at = cr->lo;
      }
    }
    if (!r->sink(r->sink_at, p, sz * n)) return 0;
    r->sink_at += sz * n;
    r->streamed += sz * n;
    return sz * n;
  }
  if (r->cap && r->body.size() + sz * n > r->cap) {
    r->too_big = true;
    return 0;
  }
  r->body.append(p, sz * n);
  return sz * n;
}

size_t on_header(char* p, size_t sz, size_t n, void* ud) {
  std::string_view h(p, sz * n);
  auto* r = static_cast<Reply*>(ud);
  if (h.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect)
    r->content_range.clear();
    auto sp = h.find(' ');
    auto code = sp == std::string_view::npos ? std::nullopt : parse_decimal(h.substr(sp + 1, 3), 999);
    r->status_seen = code ? static_cast<long>(*code) : 0;
  }
  if (h.size() > 14 && (h.compare(0, 14, "Content-Range:") == 0 || h.compare(0, 14, "content-range:") == 0))
    r->content_range = std::string(trim(h.substr(14)));
  return sz * n;
}

bool transient(const Reply& r) {
  switch (r.code) {
    case CURLE_OK: return r.status == 429 || r.status == 500 || r.status == 502 || r.status == 503 || r.status == 504;
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING: return true;
    default: return false;
  }
}

std::string status_text(long status) {
  switch (status) {
    case 401: return " (unauthorized: credentials from ~/.netrc or WHEELCHECK_HTTP_AUTHORIZATION?)";
    case 403: return " (forbidden)";
    case 404: return " (not found)";
    case 416: return " (range not satisfiable)";
    case 429: return " (too many requests)";
    default: return status >= 500 ? " (server error)" : "";
  }
}

// The options every request shares (redirects, http(s) only, HTTP/2 where offered, credentials,
// timeouts), set on a handle that may have served earlier requests: its connections stay. Returns
// the header list the handle now points at (the caller frees it after the transfer).
struct curl_slist* configure(CURL* c, const std::string& url, const std::string& range, const std::string& accept,
                             long limit_ms, Reply& r) {
  const HttpOptions& o = options();
  curl_easy_reset(c);  // options cleared; live connections and caches stay
  if (CURLSH* share = run_share()) curl_easy_setopt(c, CURLOPT_SHARE, share);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, static_cast<long>(o.timeout_seconds));
  // A transfer that moves under 1 KiB/s for the timeout is stalled: it ends, and is retried.
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, static_cast<long>(o.timeout_seconds));
  curl_easy_setopt(c, CURLOPT_USERAGENT, "wheelcheck");
  curl_easy_setopt(c, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
  if (const char* netrc = std::getenv("NETRC")) curl_easy_setopt(c, CURLOPT_NETRC_FILE, netrc);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
  struct curl_slist* headers = nullptr;
  if (!accept.empty()) headers = curl_slist_append(headers, ("Accept: " + accept).c_str());
  if (const char* auth = std::getenv("WHEELCHECK_HTTP_AUTHORIZATION"); auth && *auth)
    headers = curl_slist_append(headers, ("Authorization: " + std::string(auth)).c_str());
  if (headers) curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  if (!range.empty()) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, limit_ms);
  return headers;
}

// After a transfer: its status, the connections it opened, and which limit a timeout was.
void finish_transfer(CURL* c, Reply& r, Connection& conn, Clock::time_point start, long limit_ms, long request_ms) {
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  long opened = 0;
  curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &opened);
  ++conn.requests;
  conn.connections += static_cast<uint64_t>(std::max(0L, opened));
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (r.code == CURLE_OPERATION_TIMEDOUT) {
    // curl says "timed out" for the stall limit and for the wall-clock one alike: which was it?
    const double ran_ms = r.seconds * 1000.0;
    if (ran_ms + 50 >= double(limit_ms))
      r.limit = limit_ms < request_ms ? Reply::Limit::wheel : Reply::Limit::request;
    else
      r.limit = Reply::Limit::stall;
  }
}

// One request, retried with backoff while the failure is transient and `deadline` (the wheel's or
// the page's time limit) allows. Returns the last reply, with what every attempt saw. A streamed
// request (`sink`) is retried from where its bytes stopped: `range_from` gives the range to ask for.
Reply perform(const std::string& url, const std::string& range, uint64_t cap, const std::string& accept,
              Clock::time_point deadline, Connection& conn, bool whole_file = false,
              const std::function<bool(uint64_t, const char*, size_t)>& sink = {},
              const std::function<std::string()>& range_from = {}) {
  curl_global();
  const HttpOptions& o = options();
  Reply r;
  std::vector<std::string> history;
  for (unsigned attempt = 0;; ++attempt) {
    r = Reply{};
    r.cap = cap;
    r.sink = sink;
    const auto start = Clock::now();
    const auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - start).count();
    if (left_ms <= 0) {
      r.code = CURLE_OPERATION_TIMEDOUT;
      r.limit = Reply::Limit::wheel;
      history.push_back(attempt_text(r));
      r.attempts = std::move(history);
      return r;
    }
    // A whole-file download is one request for the whole wheel: only the wheel's limit bounds it.
    const long request_ms = static_cast<long>(whole_file ? o.wheel_seconds : o.request_seconds) * 1000;
    const long limit_ms = std::min<long>(request_ms, static_cast<long>(left_ms));
    if (!conn.handle) conn.handle = curl_easy_init();
    CURL* c = conn.handle;
    if (!c) throw IoError(display_url(url) + ": cannot start libcurl");
    struct curl_slist* headers = configure(c, url, range_from ? range_from() : range, accept, limit_ms, r);
    if (whole_file) curl_easy_setopt(c, CURLOPT_BUFFERSIZE, 512L << 10);  // fewer, larger writes to the spool
    r.code = curl_easy_perform(c);
    finish_transfer(c, r, conn, start, limit_ms, request_ms);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
    curl_slist_free_all(headers);
    history.push_back(attempt_text(r));
    const bool out_of_time = r.limit == Reply::Limit::wheel || Clock::now() >= deadline;
    if (r.too_big || !transient(r) || attempt >= o.retries || out_of_time) {
      r.attempts = std::move(history);
      return r;
    }
    auto pause = std::chrono::milliseconds(std::min(4000u, 250u << attempt));
    if (Clock::now() + pause >= deadline) {
      r.attempts = std::move(history);
      return r;
    }
    std::this_thread::sleep_for(pause);
  }
}

// Several ranges of one URL at once, over a multi handle: at most max_connections to the host
// (HTTP/2 multiplexes them on one), each bounded like a single request. One attempt each: a range
// that fails here is read again on demand, with the retries and the messages of perform().
std::vector<Reply> perform_parallel(const std::string& url, const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                                    Clock::time_point deadline, Connection& totals) {
  curl_global();
  const HttpOptions& o = options();
  std::vector<Reply> replies(ranges.size());
  const auto start = Clock::now();
  const auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - start).count();
  if (ranges.empty() || left_ms <= 0) return replies;
  const long request_ms = static_cast<long>(o.request_seconds) * 1000;
  const long limit_ms = std::min<long>(request_ms, static_cast<long>(left_ms));
  thread_local MultiPool pool;
  CURLM* m = pool.m;
  if (!m) return replies;
  curl_multi_setopt(m, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_MULTIPLEX));
  curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(o.max_connections));
  curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, static_cast<long>(o.max_connections));
  std::vector<std::unique_ptr<Connection>> handles(ranges.size());
  std::vector<struct curl_slist*> headers(ranges.size(), nullptr);
  for (size_t i = 0; i < ranges.size(); ++i) {
    handles[i] = std::make_unique<Connection>();
    handles[i]->handle = curl_easy_init();
    if (!handles[i]->handle) continue;
    replies[i].cap = ranges[i].second - ranges[i].first + 1;
    headers[i] =
        configure(handles[i]->handle, url, std::to_string(ranges[i].first) + "-" + std::to_string(ranges[i].second - 1),
                  "", limit_ms, replies[i]);
    curl_easy_setopt(handles[i]->handle, CURLOPT_PRIVATE, reinterpret_cast<char*>(i));
    curl_easy_setopt(handles[i]->handle, CURLOPT_SHARE, parallel_share());
    // Over TLS, wait to share one HTTP/2 connection (multiplexed) rather than open more.
    if (url.rfind("https://", 0) == 0) curl_easy_setopt(handles[i]->handle, CURLOPT_PIPEWAIT, 1L);
    curl_multi_add_handle(m, handles[i]->handle);
  }
  for (int running = 1; running;) {
    if (curl_multi_perform(m, &running) != CURLM_OK) break;
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(m, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      char* tag = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &tag);
      size_t i = reinterpret_cast<size_t>(tag);
      replies[i].code = msg->data.result;
      finish_transfer(msg->easy_handle, replies[i], *handles[i], start, limit_ms, request_ms);
    }
    if (running && curl_multi_poll(m, nullptr, 0, 1000, nullptr) != CURLM_OK) break;
  }
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (!handles[i]->handle) continue;
    curl_multi_remove_handle(m, handles[i]->handle);
    curl_slist_free_all(headers[i]);
    totals.requests += handles[i]->requests;
    totals.connections += handles[i]->connections;
  }
  return replies;  // the connections stay in this thread's pool
}

// An IoError for a reply that failed (transport error or an HTTP status other than `ok`s).
void require_ok(const Reply& r, const std::string& url, std::initializer_list<long> ok, uint64_t cap) {
  if (r.too_big) throw IoError(display_url(url) + ": reply larger than " + std::to_string(cap) + " bytes");
  if (r.code == CURLE_TOO_MANY_REDIRECTS)
    throw IoError(display_url(url) + ": more than 10 redirects (a redirect loop?)");
  // Earlier attempts, when there were any: what each saw, so a retry history reads true.
  std::string tried;
  if (r.attempts.size() > 1) {
    tried = " [" + std::to_string(r.attempts.size()) + " attempts: ";
    for (size_t i = 0; i < r.attempts.size(); ++i) tried += (i ? "; " : "") + r.attempts[i];
    tried += "]";
  }
  if (r.code == CURLE_OPERATION_TIMEDOUT) {
    const HttpOptions& o = options();
    switch (r.limit) {
      case Reply::Limit::wheel:
        throw IoError(display_url(url) + ": the time limit of " + std::to_string(o.wheel_seconds) +
                      " s for one wheel or index page ran out (WHEELCHECK_HTTP_WHEEL_TIMEOUT sets it; " +
                      rate_text(r.body.size(), r.seconds) + " in the last request)" + tried);
      case Reply::Limit::request:
        throw IoError(display_url(url) + ": one request ran past its limit of " + std::to_string(o.request_seconds) +
                      " s, the bytes still arriving (" + rate_text(r.body.size(), r.seconds) +
                      "; WHEELCHECK_HTTP_REQUEST_TIMEOUT sets it)" + tried);
      default:
        throw IoError(display_url(url) + ": the server stalled (" +
                      (r.body.empty() ? "no bytes" : "under 1 KiB/s, " + std::to_string(r.body.size()) + " bytes") +
                      " in " + std::to_string(o.timeout_seconds) + " s; WHEELCHECK_HTTP_TIMEOUT sets it)" + tried);
    }
  }
  if (r.code == CURLE_PARTIAL_FILE)
    throw IoError(display_url(url) + ": the body was cut short (the server closed the connection early)" + tried);
  if (r.code != CURLE_OK) throw IoError(display_url(url) + ": " + curl_easy_strerror(r.code) + tried);
  for (long s : ok)
    if (r.status == s) return;
  throw IoError(display_url(url) + ": HTTP status " + std::to_string(r.status) + status_text(r.status) + tried);
}

// The body of a wheel streamed once, in order, into an unnamed file (O_TMPFILE in $TMPDIR, or one
// unlinked at once): memory stays flat whatever the wheel's size, and nothing is left behind.
// Readers wait for the bytes they need; a failed stream is an IoError for every reader.
class Spool {
 public:
  // `hash`: the body's sha256 is taken as it arrives (digest_hex()); without it, digest_hex() is "".
  Spool(const std::string& shown, bool hash) {
    if (hash) sha_.emplace("sha256");
    std::string d;
    fd_ = open_scratch_file("spool", d);
    if (fd_ < 0) throw IoError(shown + ": cannot make a spool file in " + d + ": " + std::strerror(errno));
  }
  ~Spool() { ::close(fd_); }
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  // From the transfer: the bytes at `off` (always where the spool ends).
  bool append(uint64_t off, const char* p, size_t n) {
    if (off != have_ || cancelled_) return false;
    if (sha_) sha_->update(p, n);  // in order, from byte 0: the body's hash at no second pass
    if (std::string why = write_all_at(fd_, p, n, off); !why.empty()) {
      fail("cannot write the spool file: " + why);
      return false;
    }
    std::lock_guard<std::mutex> l(mu_);
    have_ += n;
    cv_.notify_all();
    return true;
  }
  void fail(std::string why) {
    std::lock_guard<std::mutex> l(mu_);
    if (error_.empty()) error_ = std::move(why);
    cv_.notify_all();
  }
  void cancel() { cancelled_ = true; }
  uint64_t have() const { return have_; }
  // Once the transfer has ended (its thread joined): the sha256 of what arrived.
  std::string digest_hex() { return sha_ ? sha_->digest_hex() : std::string(); }
  // Waits until [off, off + n) is here (or the stream failed: IoError with its reason).
  void read(uint64_t off, void* buf, size_t n, const std::string& shown) {
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] { return have_ >= off + n || !error_.empty(); });
      if (have_ < off + n) throw IoError(error_);
    }
    if (std::string why = read_all_at(fd_, buf, n, off); !why.empty())
      throw IoError(shown + ": cannot read the spool file: " + why);
  }

 private:
  int fd_ = -1;
  std::atomic<uint64_t> have_{0};
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::string error_;
  std::optional<Digest> sha_;
};

class HttpSource : public Source {
 public:
  HttpSource(std::string url, ReadPlan plan, bool hash_body)
      : hash_body_(hash_body),
        url_(std::move(url)),
        shown_(display_url(url_)),
        deadline_(Clock::now() + std::chrono::seconds(options().wheel_seconds)) {
    Reply r = perform(url_, "0-0", 1 << 16, "", deadline_, conn_);
    const bool whole_reply = r.code == CURLE_OK && r.status == 200;  // the probe's reply was the whole body
    if (r.too_big) r.too_big = false, r.code = CURLE_OK;             // a 200 to a range probe: only its status matters
    require_ok(r, url_, {200, 206}, 1 << 16);
    fetched_ += r.body.size();
    if (r.status == 206) {
      auto cr = parse_content_range(r.content_range);
      if (!cr || cr->lo != 0 || cr->hi != 0)
        throw IoError(shown_ + ": unreadable Content-Range '" + escape_for_display(r.content_range) +
                      "' in reply to a range request");
      size_ = cr->total;
      // A whole read: the body streams once, from byte 0, and every read is served from it; the
      // last 1% (where the central directory lies) may be asked for by range meanwhile.
      if (plan == ReadPlan::whole) {
        start_stream(true);
        streaming_ = true;
        if (size_ >= kMinTailSource) tail_from_ = size_ - size_ / 100;
      }
    } else if (whole_reply) {
      // The server ignores Range and the file fit in the probe's reply: that is the body.
      spool_ = std::make_unique<Spool>(shown_, hash_body_);
      spool_->append(0, r.body.data(), r.body.size());
      size_ = spool_->have();
      sha256_ = spool_->digest_hex();
    } else {
      // The server ignores Range: one whole download, streamed to the spool, bounded.
      size_ = kMaxWholeDownload;  // until the download ends
      start_stream(false);
      stream_->join();
      stream_.reset();
      if (!stream_error_.empty()) throw IoError(stream_error_);
      size_ = spool_->have();
      sha256_ = spool_->digest_hex();
    }
  }

  ~HttpSource() override {
    if (stream_) {
      spool_->cancel();
      stream_->join();
    }
  }

  // The reader may finish as the last bytes land in the spool, before the stream thread has counted
  // them and its request: wait for it (stopping it first if the body is no longer needed).
  void settle() override {
    if (!stream_) return;
    const bool whole = spool_->have() >= size_;
    if (!whole) spool_->cancel();
    stream_->join();
    stream_.reset();
    if (whole && stream_error_.empty() && spool_->have() == size_) sha256_ = spool_->digest_hex();
  }
  std::string content_sha256() const override { return sha256_; }
  bool streams_in_order() const override { return streaming_; }

  uint64_t size() const override { return size_; }
  const std::string& display_name() const override { return shown_; }  // never the credentials
  uint64_t bytes_read() const override { return fetched_; }
  uint64_t requests() const override { return conn_.requests + stream_conn_.requests; }
  uint64_t connections() const override { return conn_.connections + stream_conn_.connections; }

  // Planned ranges: near ones joined (gap under coalesce_gap), each request at most kMaxRequest,
  // all of them in parallel, no more than the cache holds; what is cached already is not asked for.
  void prefetch(const std::vector<std::pair<uint64_t, uint64_t>>& wanted) override {
    if (spool_) return;
    std::vector<std::pair<uint64_t, uint64_t>> rs;
    for (auto [lo, hi] : wanted) {
      hi = std::min(hi, size_);
      if (lo < hi) rs.emplace_back(lo, hi);
    }
    std::sort(rs.begin(), rs.end());
    std::vector<std::pair<uint64_t, uint64_t>> plan;
    const uint64_t gap = options().coalesce_gap;
    for (auto [lo, hi] : rs) {
      if (!plan.empty() && lo <= plan.back().second + gap && hi - plan.back().first <= kMaxRequest)
        plan.back().second = std::max(plan.back().second, hi);
      else
        plan.emplace_back(lo, hi);
    }
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::pair<uint64_t, uint64_t>> ask;
    uint64_t budget = kCacheBytes / 2;
    for (auto& r : plan) {
      if (cached_span(r.first) && cached_span(r.second - 1)) continue;
      if (r.second - r.first > budget) break;
      budget -= r.second - r.first;
      ask.push_back(r);
    }
    if (ask.empty()) return;
    Connection counts;
    std::vector<Reply> replies = perform_parallel(url_, ask, deadline_, counts);
    conn_.requests += counts.requests;
    conn_.connections += counts.connections;
    for (size_t i = 0; i < ask.size(); ++i) {
      Reply& r = replies[i];
      fetched_ += r.body.size();
      auto cr = parse_content_range(r.content_range);
      // Anything wrong is left to the on-demand read, which retries and names the fault.
      if (r.code != CURLE_OK || r.status != 206 || !cr || cr->lo != ask[i].first || cr->hi + 1 != ask[i].second ||
          cr->total != size_ || r.body.size() != ask[i].second - ask[i].first)
        continue;
      insert_span(ask[i].first, std::move(r.body));
    }
  }

  size_t read_at(uint64_t off, void* buf, size_t n) override {
    if (off >= size_) return 0;
    n = static_cast<size_t>(std::min<uint64_t>(n, size_ - off));
    size_t done = 0;
    while (done < n) {
      const uint64_t at = off + done;
      // A whole read is served from the stream, waiting for the bytes it needs. Reads in the file's last 1% that the
      // stream has not reached (the end records and central directory, asked for first) are fetched by range instead,
      // on the second connection: the entries can then be read as the stream brings them, and the bytes read stay
      // within 1.01x.
      if (spool_ && !(at >= tail_from_ && spool_->have() < at + (n - done))) {
        spool_->read(at, static_cast<char*>(buf) + done, n - done, shown_);
        return n;
      }
      std::shared_ptr<const Span> s;
      try {
        s = span_at(at, n - done);
      } catch (const IoError&) {
        if (!spool_) throw;
        tail_from_ = UINT64_MAX;  // the range failed: the stream brings these bytes (or says why not)
        continue;
      }
      uint64_t in = at - s->off;
      size_t take = static_cast<size_t>(std::min<uint64_t>(n - done, s->bytes.size() - in));
      std::memcpy(static_cast<char*>(buf) + done, s->bytes.data() + in, take);
      done += take;
    }
    return done;
  }

 private:
  struct Span {
    uint64_t off;
    std::string bytes;
  };

  // One GET of the whole body (from byte 0; resumed from where it stopped when a retry is needed)
  // into the spool, on a thread of its own.
  void start_stream(bool ranged) {
    spool_ = std::make_unique<Spool>(shown_, hash_body_);
    stream_ = std::make_unique<std::thread>([this, ranged] {
      std::string fault;  // why the sink refused bytes
      try {
        auto sink = [this, &fault, ranged](uint64_t off, const char* p, size_t n) {
          if (off + n > size_) {
            fault = ranged ? "the server sent bytes past the file's " + std::to_string(size_)
                           : "the server ignores range requests and the file is larger than " +
                                 std::to_string(kMaxWholeDownload) + " bytes";
            return false;
          }
          if (off != spool_->have()) {
            fault = "a reply resumed at byte " + std::to_string(off) + ", not at " + std::to_string(spool_->have());
            return false;
          }
          if (!spool_->append(off, p, n)) return false;
          fetched_ += n;
          return true;
        };
        auto range = [this, ranged] {
          return ranged ? std::to_string(spool_->have()) + "-" + std::to_string(size_ - 1) : std::string();
        };
        Reply r = perform(url_, "", 0, "", deadline_, stream_conn_, true, sink, range);
        if (r.status == 206) {
          auto cr = parse_content_range(r.content_range);
          if (!cr || cr->total != size_)
            throw IoError(shown_ + ": streaming the body, the reply says Content-Range '" +
                          escape_for_display(r.content_range) + "' for a file of " + std::to_string(size_) + " bytes");
        }
        if (!fault.empty()) throw IoError(shown_ + ": " + fault);
        require_ok(r, url_, {200, 206}, 0);
        if (ranged && spool_->have() != size_)
          throw IoError(shown_ + ": the streamed body ends after " + std::to_string(spool_->have()) + " of " +
                        std::to_string(size_) + " bytes (the body was cut short)");
      } catch (const std::exception& e) {  // IoError, and std::bad_alloc: never std::terminate
        stream_error_ = e.what();
        spool_->fail(e.what());
        return;
      } catch (...) {
        stream_error_ = shown_ + ": streaming the body stopped by an unknown exception";
        spool_->fail(stream_error_);
        return;
      }
      spool_->fail(shown_ + ": the stream ended");  // wakes readers past the end (none: reads stop at size())
    });
  }

  std::shared_ptr<const Span> cached_span(uint64_t off) {
    for (auto it = lru_.begin(); it != lru_.end(); ++it)
      if (off >= (*it)->off && off - (*it)->off < (*it)->bytes.size()) {
        auto s = *it;
        lru_.erase(it);
        lru_.push_front(s);
        return s;
      }
    return nullptr;
  }

  std::shared_ptr<const Span> insert_span(uint64_t off, std::string bytes) {
    auto s = std::make_shared<const Span>(Span{off, std::move(bytes)});
    cached_ += s->bytes.size();
    lru_.push_front(s);
    while (cached_ > kCacheBytes && lru_.size() > 1) {
      cached_ -= lru_.back()->bytes.size();
      lru_.pop_back();
    }
    return s;
  }

  // A cached span holding `off`, or a new one fetched from `off` (at least `want` bytes; more while
  // reads run on sequentially).
  std::shared_ptr<const Span> span_at(uint64_t off, uint64_t want) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto s = cached_span(off)) return s;
    readahead_ = off == last_end_ ? std::min(readahead_ * 2, kMaxRequest) : kMinRequest;
    uint64_t len = std::min(std::max(want, readahead_), size_ - off);
    uint64_t lo = off, hi = off + len - 1;
    Reply r = perform(url_, std::to_string(lo) + "-" + std::to_string(hi), len + 1, "", deadline_, conn_);
    require_ok(r, url_, {206}, len + 1);
    fetched_ += r.body.size();
    auto cr = parse_content_range(r.content_range);
    if (!cr || cr->lo != lo || cr->hi != hi || cr->total != size_)
      throw IoError(shown_ + ": asked for bytes " + std::to_string(lo) + "-" + std::to_string(hi) + " of " +
                    std::to_string(size_) + ", the reply says Content-Range '" + escape_for_display(r.content_range) +
                    "'");
    if (r.body.size() != len)
      throw IoError(shown_ + ": range " + std::to_string(lo) + "-" + std::to_string(hi) + " answered with " +
                    std::to_string(r.body.size()) + " bytes (the body was cut short)");
    last_end_ = hi + 1;
    return insert_span(lo, std::move(r.body));
  }

  const bool hash_body_;  // content_sha256() wanted: the body is hashed as it streams in
  std::string url_, shown_;
  Clock::time_point deadline_;  // everything read for this wheel ends by then
  Connection conn_;             // one handle for this wheel's range requests (under mu_)
  Connection stream_conn_;      // the stream's own handle
  uint64_t size_ = 0;
  std::unique_ptr<Spool> spool_;
  bool streaming_ = false;                       // a ranged whole read: the body streams from byte 0
  std::atomic<uint64_t> tail_from_{UINT64_MAX};  // reads from here on may go by range while the body streams
  std::unique_ptr<std::thread> stream_;
  std::string stream_error_;
  std::string sha256_;  // the whole body's, once it all streamed in order
  std::list<std::shared_ptr<const Span>> lru_;
  uint64_t cached_ = 0, last_end_ = UINT64_MAX, readahead_ = kMinRequest;
  std::atomic<uint64_t> fetched_{0};
  std::mutex mu_;
};

}  // namespace

void set_http_options(const HttpOptions& o) { options() = o; }
const HttpOptions& http_options() { return options(); }

std::string display_url(const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  auto host_start = scheme + 3;
  auto path = url.find_first_of("/?#", host_start);
  auto at = url.rfind('@', path == std::string::npos ? url.size() : path);
  if (at == std::string::npos || at < host_start) return url;
  return url.substr(0, host_start) + url.substr(at + 1);
}

std::string http_get(const std::string& url, const std::string& accept, uint64_t cap) {
  Connection conn;
  Reply r = perform(url, "", cap, accept, Clock::now() + std::chrono::seconds(options().wheel_seconds), conn);
  require_ok(r, url, {200}, cap);
  return r.body;
}

std::unique_ptr<Source> open_source(const std::string& target, ReadPlan plan, bool hash_body) {
  if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0)
    return std::make_unique<HttpSource>(target, plan, hash_body);
  return std::make_unique<FileSource>(target);
}

}  // namespace wc
