#include "io/targets.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>

#include "io/source.h"
#include "util/strings.h"

namespace wc {

namespace fs = std::filesystem;

static bool is_url(const std::string& t) { return t.rfind("http://", 0) == 0 || t.rfind("https://", 0) == 0; }

// An href relative to the page it sits on (RFC 3986 reference resolution, the common cases).
static std::string resolve_url(const std::string& href, const std::string& page) {
  if (is_url(href)) return href;
  auto scheme_end = page.find("://");
  auto host_end = page.find('/', scheme_end + 3);
  std::string origin = page.substr(0, host_end);
  if (href.rfind("//", 0) == 0) return page.substr(0, scheme_end + 1) + href;
  if (!href.empty() && href[0] == '/') return origin + href;
  std::string base = page.substr(0, page.find_first_of("?#"));
  base = base.substr(0, base.rfind('/') + 1);
  return base + href;
}

static std::string html_unescape(std::string s) {
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}}) {
    for (size_t p; (p = s.find(from)) != std::string::npos;) s.replace(p, from.size(), to);
  }
  return s;
}

std::vector<IndexLink> parse_index_page(const std::string& body, const std::string& page_url) {
  std::vector<IndexLink> links;
  size_t first = body.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && body[first] == '{') {  // PEP 691 JSON
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(body);
    } catch (const nlohmann::json::parse_error& e) {
      throw std::runtime_error(page_url + ": index reply is not valid JSON: " + e.what());
    }
    if (!j.contains("files") || !j["files"].is_array()) throw std::runtime_error(page_url + ": PEP 691 reply has no \"files\" array");
    for (const auto& f : j["files"]) {
      if (!f.is_object() || !f.contains("filename") || !f.contains("url") || !f["filename"].is_string() || !f["url"].is_string()) continue;
      std::string url = resolve_url(f["url"], page_url);
      links.push_back({f["filename"], url.substr(0, url.find('#'))});
    }
    return links;
  }
  // PEP 503 HTML: <a href="URL#sha256=..." data-requires-python="...">FILENAME</a>
  static const std::regex anchor(R"(<a\s([^>]*)>([^<]*)</a>)", std::regex::icase);
  static const std::regex href(R"re(href\s*=\s*"([^"]*)")re", std::regex::icase);
  for (auto it = std::sregex_iterator(body.begin(), body.end(), anchor); it != std::sregex_iterator(); ++it) {
    std::string attrs = (*it)[1], text = html_unescape((*it)[2]);
    std::smatch m;
    if (!std::regex_search(attrs, m, href)) continue;
    std::string url = html_unescape(m[1]);
    IndexLink l;
    l.url = resolve_url(url.substr(0, url.find('#')), page_url);
    l.filename = text.empty() ? target_basename(l.url) : text;
    links.push_back(l);
  }
  return links;
}

static std::vector<std::string> index_wheels(const std::string& page, const std::string& match) {
  std::string body;
  try {
    body = http_get(page, "application/vnd.pypi.simple.v1+json, text/html;q=0.5", 64u << 20);
  } catch (const IoError& e) {
    throw std::runtime_error(e.what());
  }
  std::vector<std::string> out;
  for (const auto& l : parse_index_page(body, page)) {
    if (!l.filename.ends_with(".whl")) continue;
    if (!match.empty() && !glob_match(match, l.filename)) continue;
    out.push_back(l.url);
  }
  if (out.empty()) throw std::runtime_error(page + ": the index page lists no wheels" + (match.empty() ? "" : " matching '" + match + "'"));
  return out;
}

std::vector<std::string> expand_targets(const std::vector<std::string>& targets, const std::string& match) {
  std::vector<std::string> out;
  for (const auto& t : targets) {
    if (is_url(t)) {
      std::string path = t.substr(0, t.find_first_of("?#"));
      if (path.ends_with(".whl")) {
        out.push_back(t);
      } else {
        auto wheels = index_wheels(t, match);
        out.insert(out.end(), wheels.begin(), wheels.end());
      }
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(t, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(t, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().extension() == ".whl") found.push_back(it->path().string());
      }
      if (found.empty()) throw std::runtime_error(t + ": no *.whl files in this directory");
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else if (fs::exists(t, ec)) {
      out.push_back(t);
    } else {
      throw std::runtime_error(t + ": no such file or directory");
    }
  }
  return out;
}

std::string target_basename(const std::string& target) {
  std::string path = target;
  if (is_url(target)) {
    path = path.substr(0, path.find_first_of("?#"));
    std::string decoded;
    for (size_t i = 0; i < path.size(); ++i) {
      if (path[i] == '%' && i + 2 < path.size() && std::isxdigit(static_cast<unsigned char>(path[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(path[i + 2]))) {
        decoded += static_cast<char>(std::stoi(path.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        decoded += path[i];
      }
    }
    path = decoded;
  }
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace wc
