#include "io/targets.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/source.h"
#include "util/json_text.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {

namespace fs = std::filesystem;

bool is_url(const std::string& t) { return t.rfind("http://", 0) == 0 || t.rfind("https://", 0) == 0; }

// RFC 3986 section 5.2.4 on an absolute path: "." segments go, ".." removes the one before (never
// above the root); a query is left as it is.
static std::string remove_dot_segments(const std::string& path_and_query) {
  size_t q = path_and_query.find('?');
  std::string path = path_and_query.substr(0, q), rest = q == std::string::npos ? "" : path_and_query.substr(q);
  std::vector<std::string> out;
  size_t i = 1;  // past the leading '/'
  bool trailing = false;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string seg = path.substr(i, j - i);
    trailing = j == path.size() && (seg == "." || seg == "..");
    if (seg == "..") {
      if (!out.empty()) out.pop_back();
    } else if (seg != ".") {
      out.push_back(seg);
    }
    i = j + 1;
  }
  std::string r;
  for (const auto& seg : out) r += "/" + seg;
  if (r.empty() || trailing) r += "/";
  return r + rest;
}

// An href relative to the page it sits on (RFC 3986 reference resolution, the common cases).
static std::string resolve_url(const std::string& href, const std::string& page) {
  if (is_url(href)) return href;
  auto scheme_end = page.find("://");
  auto host_end = page.find('/', scheme_end + 3);
  std::string origin = page.substr(0, host_end);
  if (href.rfind("//", 0) == 0) return page.substr(0, scheme_end + 1) + href;
  if (!href.empty() && href[0] == '/') return origin + remove_dot_segments(href);
  std::string base = page.substr(0, page.find_first_of("?#"));
  base = base.substr(0, base.rfind('/') + 1);
  if (host_end == std::string::npos || base.size() <= host_end) return base + href;
  return origin + remove_dot_segments(base.substr(host_end) + href);
}

// One pass over an attribute or text: the named entities PEP 503 pages use and numeric ones.
static std::string html_unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out.push_back(s[i]);
      continue;
    }
    auto semi = s.find(';', i);
    std::string_view ent =
        semi == std::string_view::npos || semi - i > 10 ? std::string_view() : s.substr(i + 1, semi - i - 1);
    std::optional<uint64_t> code;
    if (ent == "amp")
      code = '&';
    else if (ent == "lt")
      code = '<';
    else if (ent == "gt")
      code = '>';
    else if (ent == "quot")
      code = '"';
    else if (ent == "apos")
      code = '\'';
    else if (ent.size() > 1 && ent[0] == '#')
      code = parse_integer(
          ent[1] == 'x' || ent[1] == 'X' ? "0" + std::string(ent.substr(1)) : std::string(ent.substr(1)), 0x7f);
    if (!code) {
      out.push_back('&');
      continue;
    }
    out.push_back(static_cast<char>(*code));
    i = semi;
  }
  return out;
}

namespace {

// The attributes of one start tag `<a ...>`: name="value", name='value', name=value or bare name.
// `p` is just past "<a"; on return it is past '>'. Linear in the tag's length.
std::map<std::string, std::string> tag_attributes(std::string_view body, size_t& p) {
  std::map<std::string, std::string> attrs;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; };
  while (p < body.size() && body[p] != '>') {
    while (p < body.size() && (space(body[p]) || body[p] == '/')) ++p;
    size_t n0 = p;
    while (p < body.size() && !space(body[p]) && body[p] != '=' && body[p] != '>') ++p;
    std::string name = to_lower(body.substr(n0, p - n0));
    while (p < body.size() && space(body[p])) ++p;
    std::string value;
    if (p < body.size() && body[p] == '=') {
      ++p;
      while (p < body.size() && space(body[p])) ++p;
      if (p < body.size() && (body[p] == '"' || body[p] == '\'')) {
        char q = body[p++];
        size_t end = body.find(q, p);
        if (end == std::string_view::npos) end = body.size();
        value = html_unescape(body.substr(p, end - p));
        p = std::min(end + 1, body.size());
      } else {
        size_t v0 = p;
        while (p < body.size() && !space(body[p]) && body[p] != '>') ++p;
        value = html_unescape(body.substr(v0, p - v0));
      }
    }
    if (!name.empty()) attrs.emplace(std::move(name), std::move(value));
  }
  if (p < body.size()) ++p;  // '>'
  return attrs;
}

// A source distribution's name: {name}-{version}.tar.gz, or a legacy {name}-{version}.zip (a .zip
// whose name ends in a version, not any zip that lies in a folder of wheels).
bool looks_like_sdist(const std::string& file) {
  if (file.ends_with(".tar.gz")) return true;
  if (!file.ends_with(".zip")) return false;
  const auto dash = file.rfind('-');
  return dash != std::string::npos && dash + 1 < file.size() && file[dash + 1] >= '0' && file[dash + 1] <= '9';
}

std::string fragment_sha256(const std::string& url) {
  auto hash = url.find("#sha256=");
  return hash == std::string::npos ? "" : to_lower(url.substr(hash + 8));
}

}  // namespace

IndexPage parse_index_page(const std::string& body, const std::string& page_url, const LinkFilter& keep,
                           uint64_t max_links) {
  IndexPage page;
  // Every link is counted; one that passes the filter is kept while there is room.
  auto offer = [&](IndexLink&& l) {
    ++page.seen;
    if (keep && !keep(l.filename)) return;
    if (page.links.size() >= max_links) {
      ++page.left_out;
      return;
    }
    page.links.push_back(std::move(l));
  };
  size_t first = body.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && body[first] == '{') {  // PEP 691 JSON
    bool has_files = false;
    auto on_file = [&](const nlohmann::json& f) {
      if (!f.is_object() || !f.contains("filename") || !f.contains("url") || !f["filename"].is_string() ||
          !f["url"].is_string())
        return;
      std::string url = resolve_url(f["url"], page_url);
      IndexLink l;
      if (f.contains("provenance") && f["provenance"].is_string() && !f["provenance"].get<std::string>().empty())
        l.provenance_url = resolve_url(f["provenance"], page_url);
      l.filename = f["filename"];
      l.url = url.substr(0, url.find('#'));
      l.sha256 = fragment_sha256(url);
      if (auto h = url.find('#'); h != std::string::npos) l.fragment = url.substr(h + 1);
      if (f.contains("hashes") && f["hashes"].is_object() && f["hashes"].contains("sha256") &&
          f["hashes"]["sha256"].is_string())
        l.sha256 = to_lower(f["hashes"]["sha256"].get<std::string>());
      for (const char* key : {"core-metadata", "dist-info-metadata", "data-dist-info-metadata"}) {
        if (!f.contains(key)) continue;
        const auto& m = f[key];
        if (m.is_boolean())
          l.metadata = m.get<bool>();
        else if (m.is_object()) {
          l.metadata = true;
          if (m.contains("sha256") && m["sha256"].is_string())
            l.metadata_sha256 = to_lower(m["sha256"].get<std::string>());
        }
        break;
      }
      offer(std::move(l));
    };
    // Only what a link is made of is built (a file's name, URL, sha256 and metadata flags): the
    // rest of the reply is walked past in linear time, whatever it nests.
    auto wanted = [](const JsonPlace& at) {
      const auto& keys = *at.keys;
      if (at.depth == 1) return keys[0] == "files";
      if (at.depth == 2) return true;
      if (at.depth == 3)
        return keys[2] == "filename" || keys[2] == "url" || keys[2] == "hashes" || keys[2] == "core-metadata" ||
               keys[2] == "dist-info-metadata" || keys[2] == "data-dist-info-metadata" || keys[2] == "provenance";
      return at.depth == 4 && keys[3] == "sha256";
    };
    // Each file object is read into a link and dropped at once: the document is never held whole.
    auto read_file_object = [&](size_t depth, nlohmann::json& f) {
      if (depth != 2) return true;
      on_file(f);
      return false;
    };
    JsonError err;
    auto parsed = parse_json_pruned(body, wanted, &err, 64, read_file_object);
    has_files = parsed && parsed->is_object() && parsed->contains("files") && (*parsed)["files"].is_array();
    if (!parsed) throw std::runtime_error(page_url + ": index reply is not valid JSON: " + err.message);
    if (!parsed->is_object() || !has_files || !(*parsed)["files"].is_array())
      throw std::runtime_error(page_url + ": PEP 691 reply has no \"files\" array");
    return page;
  }
  // PEP 503 HTML: <a href="URL#sha256=..." data-requires-python="..." data-core-metadata="sha256=...">FILENAME</a>
  std::string_view b = body;
  for (size_t p = 0; (p = b.find('<', p)) != std::string_view::npos;) {
    ++p;
    if (p + 1 >= b.size() || (b[p] != 'a' && b[p] != 'A') ||
        !(b[p + 1] == ' ' || b[p + 1] == '\t' || b[p + 1] == '\n' || b[p + 1] == '\r'))
      continue;
    ++p;
    auto attrs = tag_attributes(b, p);
    size_t end = b.find('<', p);
    std::string text =
        std::string(trim(html_unescape(b.substr(p, (end == std::string_view::npos ? b.size() : end) - p))));
    auto href = attrs.find("href");
    if (href == attrs.end()) continue;
    IndexLink l;
    l.sha256 = fragment_sha256(href->second);
    if (auto h = href->second.find('#'); h != std::string::npos) l.fragment = href->second.substr(h + 1);
    l.url = resolve_url(href->second.substr(0, href->second.find('#')), page_url);
    l.filename = text.empty() ? target_basename(l.url) : text;
    if (auto pv = attrs.find("data-provenance"); pv != attrs.end() && !pv->second.empty())
      l.provenance_url = resolve_url(pv->second, page_url);
    for (const char* key : {"data-core-metadata", "data-dist-info-metadata"}) {
      auto m = attrs.find(key);
      if (m == attrs.end() || m->second == "false") continue;
      l.metadata = true;
      if (m->second.rfind("sha256=", 0) == 0) l.metadata_sha256 = to_lower(m->second.substr(7));
      break;
    }
    offer(std::move(l));
  }
  return page;
}

std::vector<IndexLink> parse_index_page(const std::string& body, const std::string& page_url) {
  return parse_index_page(body, page_url, {}, http_options().index_max_links).links;
}

namespace {
// A page that was read but lists nothing to check: a usage error (a wrong --match), not a finding.
struct NoWheels : std::runtime_error {
  using std::runtime_error::runtime_error;
};
}  // namespace

// A project page's wheels (filtered by `match` while the page is parsed, capped). A page that
// cannot be fetched or parsed throws std::runtime_error naming it.
static std::vector<TargetRef> index_wheels(const std::string& page, const std::string& match,
                                           std::vector<std::string>* notes) {
  std::string body;
  try {
    body = http_get(page, "application/vnd.pypi.simple.v1+json, text/html;q=0.5", 64u << 20);
  } catch (const IoError& e) {
    throw std::runtime_error(e.what());
  }
  const uint64_t cap = http_options().index_max_links;
  IndexPage links = parse_index_page(
      body, display_url(page),
      [&](std::string_view name) {
        return ((name.ends_with(".whl") || looks_like_sdist(std::string(name))) &&
                (match.empty() || glob_match(match, name))) ||
               name.ends_with("-variants.json");
      },
      cap);
  body.clear();
  body.shrink_to_fit();
  if (links.left_out && notes)
    notes->push_back(display_url(page) + ": " + std::to_string(links.left_out) + " of its " +
                     std::to_string(links.links.size() + links.left_out) + " wheel and sdist links" +
                     (match.empty() ? "" : " matching '" + match + "'") + " were left out (at most " +
                     std::to_string(cap) + " are read from one page; WHEELCHECK_INDEX_MAX_LINKS sets it)");
  std::vector<TargetRef> out;
  out.reserve(links.links.size());
  size_t wheels = 0;
  for (auto& l : links.links) {
    std::string md = l.metadata ? l.url + ".metadata" : "";
    bool index_file = l.filename.ends_with("-variants.json");
    bool sdist = !index_file && looks_like_sdist(l.filename);
    wheels += !index_file;
    out.push_back({std::move(l.url), sdist ? "" : std::move(md), std::move(l.metadata_sha256), std::move(l.sha256), "",
                   index_file, std::move(l.fragment), sdist});
    out.back().from_index = true;
    out.back().provenance_url = std::move(l.provenance_url);
  }
  if (wheels == 0)
    throw NoWheels(display_url(page) + ": the index page lists no wheels or sdists" +
                   (match.empty() ? "" : " matching '" + match + "'") + " (" + std::to_string(links.seen) + " links)");
  return out;
}

std::vector<TargetRef> expand_target_refs(const std::vector<std::string>& targets, const std::string& match,
                                          std::vector<std::string>* notes) {
  std::vector<TargetRef> out;
  for (const auto& t : targets) {
    if (is_url(t)) {
      std::string path = t.substr(0, t.find_first_of("?#"));
      if (path.ends_with(".whl")) {
        out.push_back({t, "", "", "", ""});
        continue;
      }
      // A page that fails (an error status, a redirect loop, a body cut short, no wheels) is a
      // finding on that page; the other targets are still checked.
      try {
        auto wheels = index_wheels(t, match, notes);
        out.insert(out.end(), std::make_move_iterator(wheels.begin()), std::make_move_iterator(wheels.end()));
      } catch (const NoWheels&) {
        throw;
      } catch (const std::runtime_error& e) {
        out.push_back({t, "", "", "", std::string("index page: ") + e.what()});
      }
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(t, ec)) {
      // One walk: the wheels, and the PEP 825 index files ({name}-{version}-variants.json) beside them.
      std::vector<std::string> found, indexes, sdists;
      for (auto it = fs::recursive_directory_iterator(t, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        if (it->path().extension() == ".whl")
          found.push_back(it->path().string());
        else if (it->path().filename().string().ends_with("-variants.json"))
          indexes.push_back(it->path().string());
        else if (looks_like_sdist(it->path().filename().string()))
          sdists.push_back(it->path().string());
      }
      if (found.empty() && sdists.empty())
        throw std::runtime_error(t + ": no *.whl files (nor *.tar.gz or *.zip sdists) in this directory");
      std::sort(found.begin(), found.end());
      std::sort(indexes.begin(), indexes.end());
      std::sort(sdists.begin(), sdists.end());
      for (auto& f : found) out.push_back({std::move(f), "", "", "", ""});
      for (auto& f : indexes) out.push_back({std::move(f), "", "", "", "", true});
      for (auto& f : sdists) out.push_back({std::move(f), "", "", "", "", false, "", true});
    } else if (fs::exists(t, ec)) {
      out.push_back(
          {t, "", "", "", "", t.ends_with("-variants.json"), "", looks_like_sdist(fs::path(t).filename().string())});
    } else {
      throw std::runtime_error(t + ": no such file or directory");
    }
  }
  return out;
}

std::vector<std::string> expand_targets(const std::vector<std::string>& targets, const std::string& match) {
  std::vector<std::string> out;
  for (auto& r : expand_target_refs(targets, match))
    if (!r.variants_index && !r.sdist) out.push_back(std::move(r.location));
  return out;
}

std::string target_basename(const std::string& target) {
  std::string path = target;
  if (is_url(target)) {
    path = percent_decode(path.substr(0, path.find_first_of("?#")));
  }
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace wc
