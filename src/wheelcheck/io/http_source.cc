// Wheels behind http(s):// URLs, read with HTTP range requests (libcurl) so a metadata-only look
// at a remote wheel fetches the central directory and a few entries, not the whole file.
// Blocks are cached (LRU); servers that ignore Range get one whole download, capped in size.
#include <curl/curl.h>

#include <cstring>

#include <list>
#include <map>
#include <mutex>

#include "io/source.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

constexpr uint64_t kBlock = 1u << 20;
constexpr size_t kCachedBlocks = 32;
constexpr uint64_t kMaxWholeDownload = 4ull << 30;

void curl_global() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Reply {
  long status = 0;
  std::string body;
  std::string content_range;
  uint64_t cap = 0;
  bool too_big = false;
};

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
  std::string h(p, sz * n);
  if (h.size() > 14 && (h.compare(0, 14, "Content-Range:") == 0 || h.compare(0, 14, "content-range:") == 0))
    static_cast<Reply*>(ud)->content_range = h.substr(14);
  return sz * n;
}

// The options every request shares: redirects, http(s) only, timeouts that end a stalled transfer.
CURL* new_request(const std::string& url, Reply& r) {
  curl_global();
  CURL* c = curl_easy_init();
  if (!c) throw IoError(url + ": cannot start libcurl");
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);  // abort a stalled transfer after 60 s
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "wheelcheck");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
  return c;
}

class HttpSource : public Source {
 public:
  explicit HttpSource(std::string url) : url_(std::move(url)) {
    Reply r = get("0-0", 1 << 16, /*allow_truncated=*/true);  // CURLOPT_RANGE takes "A-B"
    if (r.status == 206) {
      auto slash = r.content_range.rfind('/');
      if (slash == std::string::npos) throw IoError(url_ + ": range reply without a total size");
      auto total = parse_decimal(trim(std::string_view(r.content_range).substr(slash + 1)), 1ull << 48);
      if (!total) throw IoError(url_ + ": unreadable Content-Range '" + escape_for_display(trim(r.content_range)) + "'");
      size_ = *total;
    } else if (r.status == 200) {
      whole_ = true;
      Reply all = get("", kMaxWholeDownload);
      if (all.status != 200) throw IoError(url_ + ": HTTP status " + std::to_string(all.status));
      body_ = std::move(all.body);
      size_ = body_.size();
    } else {
      throw IoError(url_ + ": HTTP status " + std::to_string(r.status));
    }
  }

  uint64_t size() const override { return size_; }
  const std::string& display_name() const override { return url_; }

  size_t read_at(uint64_t off, void* buf, size_t n) override {
    if (off >= size_) return 0;
    n = static_cast<size_t>(std::min<uint64_t>(n, size_ - off));
    if (whole_) {
      std::memcpy(buf, body_.data() + off, n);
      return n;
    }
    size_t done = 0;
    while (done < n) {
      uint64_t block = (off + done) / kBlock;
      std::shared_ptr<const std::string> held = fetch(block);  // stays valid if another reader evicts it
      const std::string& b = *held;
      uint64_t in = (off + done) - block * kBlock;
      size_t take = static_cast<size_t>(std::min<uint64_t>(n - done, b.size() - in));
      if (take == 0) throw IoError(url_ + ": short range reply");
      std::memcpy(static_cast<char*>(buf) + done, b.data() + in, take);
      done += take;
    }
    return done;
  }

 private:
  // `allow_truncated`: a reply over `cap` is cut off and returned (status still set) instead of
  // failing: the first probe only needs the status of a server that ignores Range.
  Reply get(const std::string& range, uint64_t cap, bool allow_truncated = false) const {
    Reply r;
    r.cap = cap;
    CURL* c = new_request(url_, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    if (!range.empty()) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_easy_cleanup(c);
    if (r.too_big && allow_truncated) return r;
    if (r.too_big) throw IoError(url_ + ": reply larger than " + std::to_string(cap) + " bytes");
    if (rc != CURLE_OK) throw IoError(url_ + ": " + curl_easy_strerror(rc));
    return r;
  }

  std::shared_ptr<const std::string> fetch(uint64_t block) {
    std::lock_guard<std::mutex> lock(*mu_);
    auto it = cache_.find(block);
    if (it != cache_.end()) {
      lru_.remove(block);
      lru_.push_front(block);
      return it->second;
    }
    uint64_t lo = block * kBlock, hi = std::min(size_, lo + kBlock) - 1;
    Reply r = get(std::to_string(lo) + "-" + std::to_string(hi), kBlock + 1);
    if (r.status != 206 || r.body.size() != hi - lo + 1)
      throw IoError(url_ + ": range " + std::to_string(lo) + "-" + std::to_string(hi) + " answered with status " +
                    std::to_string(r.status) + " and " + std::to_string(r.body.size()) + " bytes");
    if (lru_.size() >= kCachedBlocks) {
      cache_.erase(lru_.back());
      lru_.pop_back();
    }
    lru_.push_front(block);
    return cache_[block] = std::make_shared<const std::string>(std::move(r.body));
  }

  std::string url_;
  uint64_t size_ = 0;
  bool whole_ = false;
  std::string body_;
  std::map<uint64_t, std::shared_ptr<const std::string>> cache_;
  std::list<uint64_t> lru_;
  std::shared_ptr<std::mutex> mu_ = std::make_shared<std::mutex>();
};

}  // namespace

std::string http_get(const std::string& url, const std::string& accept, uint64_t cap) {
  Reply r;
  r.cap = cap;
  CURL* c = new_request(url, r);
  struct curl_slist* headers = nullptr;
  if (!accept.empty()) headers = curl_slist_append(headers, ("Accept: " + accept).c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  CURLcode rc = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(c);
  if (r.too_big) throw IoError(url + ": reply larger than " + std::to_string(cap) + " bytes");
  if (rc != CURLE_OK) throw IoError(url + ": " + curl_easy_strerror(rc));
  if (r.status != 200) throw IoError(url + ": HTTP status " + std::to_string(r.status));
  return r.body;
}

std::unique_ptr<Source> open_source(const std::string& target) {
  if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0) return std::make_unique<HttpSource>(target);
  return std::make_unique<FileSource>(target);
}

}  // namespace wc
