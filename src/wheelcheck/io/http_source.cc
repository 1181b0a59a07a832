// Wheels behind http(s):// URLs, read with HTTP range requests (libcurl): a metadata-depth look at
// a remote wheel fetches the central directory, the dist-info files and the first bytes of its
// binaries, not the whole file. Requests are sized to what is read (64 KiB, growing while reads are
// sequential), fetched spans are cached (LRU, bounded), every reply is checked (status, the
// Content-Range it claims, the body length), transient failures are retried with backoff, and a
// stalled transfer ends at the configured timeout. Credentials come from ~/.netrc (or $NETRC) and
// WHEELCHECK_HTTP_AUTHORIZATION; URLs are shown without any user:password part, and header values
// are never shown.
#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <thread>

#include "io/source.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

constexpr uint64_t kMinRequest = 32u << 10;
constexpr uint64_t kMaxRequest = 8u << 20;
constexpr uint64_t kCacheBytes = 64u << 20;
constexpr uint64_t kMaxWholeDownload = 1ull << 30;  // servers that ignore Range: whole file, at most this

void curl_global() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// One libcurl share for the whole run: the connection cache, DNS answers and TLS sessions are
// reused across requests and across the wheels of one host (an index page, then its wheels), so a
// remote check no longer opens a TCP and TLS connection per range.
CURLSH* run_share() {
  static std::mutex locks[CURL_LOCK_DATA_LAST];
  static CURLSH* share = [] {
    curl_global();
    CURLSH* s = curl_share_init();
    if (!s) return s;
    curl_share_setopt(
        s, CURLSHOPT_LOCKFUNC, +[](CURL*, curl_lock_data d, curl_lock_access, void*) { locks[d].lock(); });
    curl_share_setopt(
        s, CURLSHOPT_UNLOCKFUNC, +[](CURL*, curl_lock_data d, void*) { locks[d].unlock(); });
    curl_share_setopt(s, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(s, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    curl_share_setopt(s, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    return s;
  }();
  return share;
}

// An easy handle kept for the requests of one wheel (used by one thread at a time), with what it
// cost: requests made, new connections opened.
struct Connection {
  CURL* handle = nullptr;
  uint64_t requests = 0, connections = 0;
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

size_t on_body(char* p, size_t sz, size_t n, void* ud) {
  auto* r = static_cast<Reply*>(ud);
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
  if (h.rfind("HTTP/", 0) == 0) r->content_range.clear();  // a new response (after a redirect)
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

// One request with the options every request shares (redirects, http(s) only, credentials,
// timeouts), retried with backoff while the failure is transient and `deadline` (the wheel's or
// the page's time limit) allows. Returns the last reply, with what every attempt saw.
Reply perform(const std::string& url, const std::string& range, uint64_t cap, const std::string& accept,
              Clock::time_point deadline, Connection& conn, bool whole_file = false) {
  curl_global();
  const HttpOptions& o = options();
  Reply r;
  std::vector<std::string> history;
  for (unsigned attempt = 0;; ++attempt) {
    r = Reply{};
    r.cap = cap;
    const auto start = Clock::now();
    const auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - start).count();
    if (left_ms <= 0) {
      r.code = CURLE_OPERATION_TIMEDOUT;
      r.limit = Reply::Limit::wheel;
      history.push_back(attempt_text(r));
      r.attempts = std::move(history);
      return r;
    }
    // A whole-file download (a server without Range support) is one request for the whole wheel:
    // only the wheel's limit bounds it.
    const long request_ms = static_cast<long>(whole_file ? o.wheel_seconds : o.request_seconds) * 1000;
    const long limit_ms = std::min<long>(request_ms, static_cast<long>(left_ms));
    if (!conn.handle)
      conn.handle = curl_easy_init();
    else
      curl_easy_reset(conn.handle);  // options cleared; live connections and caches stay
    CURL* c = conn.handle;
    if (!c) throw IoError(display_url(url) + ": cannot start libcurl");
    if (CURLSH* share = run_share()) curl_easy_setopt(c, CURLOPT_SHARE, share);
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
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
    r.code = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    long opened = 0;
    curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &opened);
    ++conn.requests;
    conn.connections += static_cast<uint64_t>(std::max(0L, opened));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
    curl_slist_free_all(headers);
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (r.code == CURLE_OPERATION_TIMEDOUT) {
      // curl says "timed out" for the stall limit and for the wall-clock one alike: which was it?
      const double ran_ms = r.seconds * 1000.0;
      if (ran_ms + 50 >= double(limit_ms))
        r.limit = limit_ms < request_ms ? Reply::Limit::wheel : Reply::Limit::request;
      else
        r.limit = Reply::Limit::stall;
    }
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

class HttpSource : public Source {
 public:
  explicit HttpSource(std::string url)
      : url_(std::move(url)),
        shown_(display_url(url_)),
        deadline_(Clock::now() + std::chrono::seconds(options().wheel_seconds)) {
    Reply r = perform(url_, "0-0", 1 << 16, "", deadline_, conn_);
    if (r.too_big) r.too_big = false, r.code = CURLE_OK;  // a 200 to a range probe: only its status matters
    require_ok(r, url_, {200, 206}, 1 << 16);
    fetched_ += r.body.size();
    if (r.status == 206) {
      auto cr = parse_content_range(r.content_range);
      if (!cr || cr->lo != 0 || cr->hi != 0)
        throw IoError(shown_ + ": unreadable Content-Range '" + escape_for_display(r.content_range) +
                      "' in reply to a range request");
      size_ = cr->total;
    } else {
      // The server ignores Range: one whole download, bounded.
      whole_ = true;
      Reply all = perform(url_, "", kMaxWholeDownload, "", deadline_, conn_, true);
      if (all.too_big)
        throw IoError(shown_ + ": the server ignores range requests and the file is larger than " +
                      std::to_string(kMaxWholeDownload) + " bytes");
      require_ok(all, url_, {200}, kMaxWholeDownload);
      fetched_ += all.body.size();
      body_ = std::move(all.body);
      size_ = body_.size();
    }
  }

  uint64_t size() const override { return size_; }
  const std::string& display_name() const override { return shown_; }  // never the credentials
  uint64_t bytes_read() const override { return fetched_; }
  uint64_t requests() const override { return conn_.requests; }
  uint64_t connections() const override { return conn_.connections; }

  size_t read_at(uint64_t off, void* buf, size_t n) override {
    if (off >= size_) return 0;
    n = static_cast<size_t>(std::min<uint64_t>(n, size_ - off));
    if (whole_) {
      std::memcpy(buf, body_.data() + off, n);
      return n;
    }
    size_t done = 0;
    while (done < n) {
      std::shared_ptr<const Span> s = span_at(off + done, n - done);
      uint64_t in = off + done - s->off;
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

  // A cached span holding `off`, or a new one fetched from `off` (at least `want` bytes; more while
  // reads run on sequentially).
  std::shared_ptr<const Span> span_at(uint64_t off, uint64_t want) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = lru_.begin(); it != lru_.end(); ++it)
      if (off >= (*it)->off && off - (*it)->off < (*it)->bytes.size()) {
        auto s = *it;
        lru_.erase(it);
        lru_.push_front(s);
        return s;
      }
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
    auto s = std::make_shared<const Span>(Span{lo, std::move(r.body)});
    cached_ += s->bytes.size();
    lru_.push_front(s);
    while (cached_ > kCacheBytes && lru_.size() > 1) {
      cached_ -= lru_.back()->bytes.size();
      lru_.pop_back();
    }
    return s;
  }

  std::string url_, shown_;
  Clock::time_point deadline_;  // everything read for this wheel ends by then
  Connection conn_;             // one handle for all of this wheel's requests (under mu_)
  uint64_t size_ = 0;
  bool whole_ = false;
  std::string body_;
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

std::unique_ptr<Source> open_source(const std::string& target) {
  if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0) return std::make_unique<HttpSource>(target);
  return std::make_unique<FileSource>(target);
}

}  // namespace wc
