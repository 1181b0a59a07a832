#include "policy/json_locate.h"

#include <vector>

#include "util/parse.h"

namespace wc {

std::string json_pointer_escape(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

namespace {

// A tolerant scanner: it assumes the text already parsed as JSON and only tracks structure.
class Locator {
 public:
  explicit Locator(const std::string& t) : t_(t) {}
  std::map<std::string, int> run() {
    skip_ws();
    value("");
    return lines_;
  }

 private:
  void skip_ws() {
    while (i_ < t_.size() && is_space(t_[i_])) {
      if (t_[i_] == '\n') ++line_;
      ++i_;
    }
  }
  std::string string() {
    std::string s;
    ++i_;  // opening quote
    while (i_ < t_.size() && t_[i_] != '"') {
      if (t_[i_] == '\\' && i_ + 1 < t_.size()) {
        char e = t_[++i_];
        s += e == 'n' ? '\n' : e == 't' ? '\t' : e;  // good enough for keys
      } else {
        s += t_[i_];
      }
      ++i_;
    }
    ++i_;
    return s;
  }
  void value(const std::string& ptr) {
    skip_ws();
    lines_.emplace(ptr, line_);
    if (i_ >= t_.size()) return;
    char c = t_[i_];
    if (c == '{') {
      ++i_;
      for (;;) {
        skip_ws();
        if (i_ >= t_.size() || t_[i_] == '}') break;
        if (t_[i_] == ',') {
          ++i_;
          continue;
        }
        int key_line = line_;
        std::string key = string();
        skip_ws();
        if (i_ < t_.size() && t_[i_] == ':') ++i_;
        std::string child = ptr + "/" + json_pointer_escape(key);
        value(child);
        lines_[child] = key_line;
      }
      ++i_;
    } else if (c == '[') {
      ++i_;
      int n = 0;
      for (;;) {
        skip_ws();
        if (i_ >= t_.size() || t_[i_] == ']') break;
        if (t_[i_] == ',') {
          ++i_;
          continue;
        }
        value(ptr + "/" + std::to_string(n++));
      }
      ++i_;
    } else if (c == '"') {
      string();
    } else {
      while (i_ < t_.size() && !is_space(t_[i_]) && t_[i_] != ',' && t_[i_] != '}' && t_[i_] != ']') ++i_;
    }
  }

  const std::string& t_;
  size_t i_ = 0;
  int line_ = 1;
  std::map<std::string, int> lines_;
};

}  // namespace

std::map<std::string, int> json_pointer_lines(const std::string& text) { return Locator(text).run(); }

}  // namespace wc
