#include "util/json_text.h"

#include <fstream>
#include <stdexcept>

#include "util/byte_scan.h"

namespace wc {
namespace {

// Deepest [ / { nesting outside strings, and where it first passes `limit` (0 if never). A
// string's bytes say nothing of nesting: the scan goes to its closing quote 16 bytes at a time,
// stepping over each backslash and the byte it escapes (most of a policy's tables, an SBOM or an
// index page is strings).
size_t depth_over(std::string_view t, size_t limit) {
  const auto* p = reinterpret_cast<const uint8_t*>(t.data());
  const size_t n = t.size();
  size_t depth = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = t[i];
    if (c == '"') {
      for (++i; i < n; i += 2) {  // past a backslash and the byte it escapes
        i += find_any_of3(p + i, n - i, '"', '\\', '\\');
        if (i >= n || t[i] == '"') break;
      }
      if (i >= n) return 0;  // the text ends inside a string
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i + 1;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return 0;
}

// nlohmann's SAX interface, building the document as json_sax_dom_parser does, except for the
// values `keep` refuses: those are walked past without being built.
class PrunedDom {
 public:
  using json = nlohmann::json;
  PrunedDom(const std::function<bool(const JsonPlace&)>& keep, const std::function<bool(size_t, json&)>& done)
      : keep_(keep), done_(done) {}

  bool null() { return value(json(nullptr)); }
  bool boolean(bool v) { return value(json(v)); }
  bool number_integer(json::number_integer_t v) { return value(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value(json(v)); }
  bool number_float(json::number_float_t v, const std::string&) { return value(json(v)); }
  bool string(json::string_t& v) { return value(json(std::move(v))); }
  bool binary(json::binary_t& v) { return value(json(json::binary_t(std::move(v)))); }
  bool start_object(size_t) { return open(json::object()); }
  bool start_array(size_t) { return open(json::array()); }
  bool key(json::string_t& k) {
    if (!skipping_) keys_.back() = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& e) {
    error_ = e.what();
    error_byte_ = 0;
    if (const auto* pe = dynamic_cast<const json::parse_error*>(&e)) error_byte_ = pe->byte;
    return false;
  }

  json root;
  std::string error_;
  size_t error_byte_ = 0;

 private:
  // Whether the value starting now is built; counts it in its container either way.
  bool wanted() {
    JsonPlace at{stack_.size(), &keys_, stack_.empty() ? 0 : counts_.back()++};
    return stack_.empty() || keep_(at);
  }
  json* place(json&& v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    json& slot = top[keys_.back()];
    slot = std::move(v);
    return &slot;
  }
  bool value(json&& v) {
    if (skipping_) return true;
    if (wanted()) place(std::move(v));
    return true;
  }
  bool open(json&& v) {
    if (skipping_) {
      ++skipping_;
      return true;
    }
    if (!wanted()) {
      skipping_ = 1;
      return true;
    }
    stack_.push_back(place(std::move(v)));
    keys_.emplace_back();
    counts_.push_back(0);
    return true;
  }
  bool close() {
    if (skipping_) {
      --skipping_;
      return true;
    }
    json* closed = stack_.back();
    stack_.pop_back();
    keys_.pop_back();
    counts_.pop_back();
    if (!stack_.empty() && done_ && !done_(stack_.size(), *closed)) {
      json& parent = *stack_.back();
      if (parent.is_array())
        parent.erase(parent.size() - 1);
      else
        parent.erase(keys_.back());
    }
    return true;
  }

  const std::function<bool(const JsonPlace&)>& keep_;
  const std::function<bool(size_t, json&)>& done_;
  std::vector<json*> stack_;
  std::vector<std::string> keys_;
  std::vector<size_t> counts_;
  size_t skipping_ = 0;  // nesting inside a refused container (0: not skipping)
};

}  // namespace

std::optional<nlohmann::json> parse_json_pruned(std::string_view text,
                                                const std::function<bool(const JsonPlace&)>& keep, JsonError* error,
                                                size_t max_depth,
                                                const std::function<bool(size_t, nlohmann::json&)>& done) {
  if (size_t at = depth_over(text, max_depth)) {
    if (error) *error = {"nested more than " + std::to_string(max_depth) + " levels deep", at};
    return std::nullopt;
  }
  PrunedDom dom(keep, done);
  try {
    if (nlohmann::json::sax_parse(text.begin(), text.end(), &dom) && dom.error_.empty()) return std::move(dom.root);
  } catch (const nlohmann::json::exception& e) {
    dom.error_ = e.what();
  }
  std::string msg = dom.error_.empty() ? "not JSON" : dom.error_;
  auto p = msg.find("]: ");  // drop nlohmann's "[json.exception.parse_error.101] " prefix
  if (p == std::string::npos && (p = msg.find("] ")) != std::string::npos) --p;
  if (error) *error = {p == std::string::npos ? msg : msg.substr(p + 3), dom.error_byte_};
  return std::nullopt;
}

std::optional<nlohmann::json> parse_json(std::string_view text, JsonError* error, size_t max_depth,
                                         const nlohmann::json::parser_callback_t& callback) {
  if (size_t at = depth_over(text, max_depth)) {
    if (error) *error = {"nested more than " + std::to_string(max_depth) + " levels deep", at};
    return std::nullopt;
  }
  try {
    return nlohmann::json::parse(text.begin(), text.end(), callback);
  } catch (const nlohmann::json::parse_error& e) {
    std::string msg = e.what();
    auto p = msg.find("]: ");  // drop nlohmann's "[json.exception.parse_error.101] " prefix
    if (error) *error = {p == std::string::npos ? msg : msg.substr(p + 3), e.byte};
  } catch (const nlohmann::json::exception& e) {
    std::string msg = e.what();
    auto p = msg.find("] ");
    if (error) *error = {p == std::string::npos ? msg : msg.substr(p + 2), 0};
  }
  return std::nullopt;
}

nlohmann::json read_json_file(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw std::runtime_error(path + ": larger than " + std::to_string(max_bytes) + " bytes");
  }
  JsonError err;
  auto j = parse_json(text, &err);
  if (!j)
    throw std::runtime_error(path + ": not valid JSON: " + err.message +
                             (err.byte ? " (byte " + std::to_string(err.byte) + ")" : ""));
  return std::move(*j);
}

}  // namespace wc
