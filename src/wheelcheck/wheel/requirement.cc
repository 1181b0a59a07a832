#include "wheel/requirement.h"

#include <algorithm>
#include <set>

#include "util/parse.h"
#include "util/strings.h"
#include "wheel/version.h"

namespace wc {

struct MarkerNode {
  enum Kind { all_of, any_of, compare } kind = compare;
  std::vector<MarkerNode> children;
  std::string lhs, op, rhs;
  bool lhs_var = false, rhs_var = false;
};

namespace {

constexpr int kMaxDepth = 32;  // nested parentheses in a marker

bool name_char(char c) { return is_alnum(c) || c == '.' || c == '_' || c == '-'; }
bool space(char c) { return c == ' ' || c == '\t'; }

class MarkerParser {
 public:
  explicit MarkerParser(std::string_view s) : s_(s) {}

  std::optional<MarkerNode> parse(std::string* error) {
    auto n = disjunction(0);
    skip();
    if (n && i_ != s_.size()) fail("unexpected '" + clip_for_display(s_.substr(i_), 20) + "'");
    if (!error_.empty()) {
      if (error) *error = "marker: " + error_;
      return std::nullopt;
    }
    return n;
  }

 private:
  void skip() {
    while (i_ < s_.size() && space(s_[i_])) ++i_;
  }
  void fail(std::string m) {
    if (error_.empty()) error_ = std::move(m);
  }
  bool keyword(std::string_view k) {
    skip();
    if (s_.substr(i_, k.size()) != k) return false;
    size_t end = i_ + k.size();
    if (end < s_.size() && (is_alnum(s_[end]) || s_[end] == '_')) return false;
    i_ = end;
    return true;
  }
  std::optional<MarkerNode> disjunction(int depth) {
    auto first = conjunction(depth);
    if (!first) return std::nullopt;
    MarkerNode n{MarkerNode::any_of, {std::move(*first)}, "", "", "", false, false};
    while (keyword("or")) {
      auto next = conjunction(depth);
      if (!next) return std::nullopt;
      n.children.push_back(std::move(*next));
    }
    return n.children.size() == 1 ? std::move(n.children[0]) : n;
  }
  std::optional<MarkerNode> conjunction(int depth) {
    auto first = atom(depth);
    if (!first) return std::nullopt;
    MarkerNode n{MarkerNode::all_of, {std::move(*first)}, "", "", "", false, false};
    while (keyword("and")) {
      auto next = atom(depth);
      if (!next) return std::nullopt;
      n.children.push_back(std::move(*next));
    }
    return n.children.size() == 1 ? std::move(n.children[0]) : n;
  }
  std::optional<MarkerNode> atom(int depth) {
    skip();
    if (i_ < s_.size() && s_[i_] == '(') {
      if (depth >= kMaxDepth) {
        fail("parentheses nested more than " + std::to_string(kMaxDepth) + " deep");
        return std::nullopt;
      }
      ++i_;
      auto inner = disjunction(depth + 1);
      skip();
      if (!inner || i_ >= s_.size() || s_[i_] != ')') {
        fail("missing ')'");
        return std::nullopt;
      }
      ++i_;
      return inner;
    }
    MarkerNode n;
    if (!value(n.lhs, n.lhs_var) || !op(n.op) || !value(n.rhs, n.rhs_var)) return std::nullopt;
    return n;
  }
  bool value(std::string& out, bool& is_var) {
    skip();
    if (i_ >= s_.size()) {
      fail("expected a marker value");
      return false;
    }
    char q = s_[i_];
    if (q == '"' || q == '\'') {
      size_t end = s_.find(q, i_ + 1);
      if (end == std::string_view::npos) {
        fail("unterminated string");
        return false;
      }
      out = std::string(s_.substr(i_ + 1, end - i_ - 1));
      is_var = false;
      i_ = end + 1;
      return true;
    }
    size_t start = i_;
    while (i_ < s_.size() && (is_alnum(s_[i_]) || s_[i_] == '_' || s_[i_] == '.')) ++i_;
    if (i_ == start) {
      fail("expected a marker variable or a quoted string");
      return false;
    }
    out = std::string(s_.substr(start, i_ - start));
    is_var = true;
    return true;
  }
  bool op(std::string& out) {
    skip();
    for (std::string_view o : {"===", "<=", ">=", "==", "!=", "~=", "<", ">"})
      if (s_.substr(i_, o.size()) == o) {
        out = std::string(o);
        i_ += o.size();
        return true;
      }
    if (keyword("in")) return out = "in", true;
    if (keyword("not")) {
      if (keyword("in")) return out = "not in", true;
    }
    fail("expected a comparison operator");
    return false;
  }

  std::string_view s_;
  size_t i_ = 0;
  std::string error_;
};

Truth both(Truth a, Truth b, bool conjunction) {
  if (conjunction)
    return a == Truth::no || b == Truth::no             ? Truth::no
           : a == Truth::unknown || b == Truth::unknown ? Truth::unknown
                                                        : Truth::yes;
  return a == Truth::yes || b == Truth::yes           ? Truth::yes
         : a == Truth::unknown || b == Truth::unknown ? Truth::unknown
                                                      : Truth::no;
}

Truth compare(const std::string& l, const std::string& op, const std::string& r) {
  if (op == "in") return r.find(l) != std::string::npos ? Truth::yes : Truth::no;
  if (op == "not in") return r.find(l) == std::string::npos ? Truth::yes : Truth::no;
  // PEP 508: version comparison when both sides are versions, else Python string comparison.
  auto v = parse_version(l);
  auto spec = op == "===" ? std::nullopt : SpecifierSet::parse(op + r);
  if (v && spec && parse_version(r)) return spec->contains(*v) ? Truth::yes : Truth::no;
  int c = l.compare(r);
  bool res = op == "==" || op == "===" ? c == 0
             : op == "!="              ? c != 0
             : op == "<"               ? c < 0
             : op == "<="              ? c <= 0
             : op == ">"               ? c > 0
             : op == ">="              ? c >= 0
                                       : false;
  return res ? Truth::yes : Truth::no;
}

bool variant_set_variable(const std::string& v) {
  return v == "variant_namespaces" || v == "variant_features" || v == "variant_properties";
}

// "nvidia::sm_arch :: 90_real" -> "nvidia :: sm_arch :: 90_real" (PEP 825: whitespace is not
// significant when matching features and properties).
std::string variant_normal(std::string_view s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t p; (p = s.find("::", start)) != std::string_view::npos; start = p + 2)
    parts.emplace_back(trim(s.substr(start, p - start)));
  parts.emplace_back(trim(s.substr(start)));
  return join(parts, " :: ");
}

Truth eval(const MarkerNode& n, const MarkerEnvironment& env) {
  if (n.kind == MarkerNode::compare && n.rhs_var && variant_set_variable(n.rhs) && !n.lhs_var &&
      (n.op == "in" || n.op == "not in")) {
    auto it = env.find(n.rhs);
    if (it == env.end()) return Truth::unknown;
    bool member = false;
    for (auto e : split(it->second, '\x1f'))
      if (!e.empty() && variant_normal(e) == variant_normal(n.lhs)) member = true;
    return member == (n.op == "in") ? Truth::yes : Truth::no;
  }
  if (n.kind != MarkerNode::compare) {
    Truth t = n.kind == MarkerNode::all_of ? Truth::yes : Truth::no;
    for (const auto& c : n.children) t = both(t, eval(c, env), n.kind == MarkerNode::all_of);
    return t;
  }
  auto resolve = [&](const std::string& s, bool var) -> std::optional<std::string> {
    if (!var) return s;
    auto it = env.find(s == "platform.python_implementation" ? "platform_python_implementation" : s);
    return it == env.end() ? std::nullopt : std::optional(it->second);
  };
  auto l = resolve(n.lhs, n.lhs_var), r = resolve(n.rhs, n.rhs_var);
  if (!l || !r) return Truth::unknown;
  if ((n.lhs_var && n.lhs == "extra") || (n.rhs_var && n.rhs == "extra"))  // extras compare normalised
    return compare(canonicalize_name(*l), n.op, canonicalize_name(*r));
  return compare(*l, n.op, *r);
}

}  // namespace

std::optional<Requirement> parse_requirement(std::string_view text, std::string* error) {
  auto fail = [&](std::string m) -> std::optional<Requirement> {
    if (error) *error = std::move(m);
    return std::nullopt;
  };
  Requirement r;
  std::string_view s = trim(text);
  size_t n = 0;
  while (n < s.size() && name_char(s[n])) ++n;
  if (n == 0 || !is_valid_project_name(s.substr(0, n))) return fail("no valid project name at the start");
  r.name = std::string(s.substr(0, n));
  r.canonical_name = canonicalize_name(r.name);
  s.remove_prefix(n);
  s = trim(s);
  if (!s.empty() && s.front() == '[') {
    auto close = s.find(']');
    if (close == std::string_view::npos) return fail("unterminated extras");
    for (auto e : split(s.substr(1, close - 1), ',')) {
      e = trim(e);
      if (!e.empty()) r.extras.push_back(canonicalize_name(e));
    }
    s = trim(s.substr(close + 1));
  }
  auto semi = s.find(';');
  std::string_view spec = trim(s.substr(0, semi));
  if (semi != std::string_view::npos) r.marker_text = std::string(trim(s.substr(semi + 1)));
  if (!spec.empty() && spec.front() == '@') {
    r.url = std::string(trim(spec.substr(1)));
  } else {
    if (!spec.empty() && spec.front() == '(' && spec.back() == ')') spec = trim(spec.substr(1, spec.size() - 2));
    if (!spec.empty()) {
      std::string err;
      if (!SpecifierSet::parse(spec, &err)) return fail(err);
      r.specifier = std::string(spec);
    }
  }
  if (!r.marker_text.empty()) {
    std::string err;
    auto m = MarkerParser(r.marker_text).parse(&err);
    if (!m) return fail(err);
    r.marker = std::make_shared<const MarkerNode>(std::move(*m));
  }
  return r;
}

Truth evaluate(const Requirement& r, const MarkerEnvironment& env) {
  return r.marker ? eval(*r.marker, env) : Truth::yes;
}

void add_variant_environment(MarkerEnvironment& env, const std::vector<std::string>& properties) {
  std::set<std::string> ns, features, props;
  for (const auto& p : properties) {
    std::string n = variant_normal(p);
    auto last = n.rfind(" :: ");
    if (last == std::string::npos) continue;
    props.insert(n);
    features.insert(n.substr(0, last));
    ns.insert(n.substr(0, n.find(" :: ")));
  }
  auto enc = [](const std::set<std::string>& s) { return "\x1f" + join({s.begin(), s.end()}, "\x1f") + "\x1f"; };
  env["variant_namespaces"] = enc(ns);
  env["variant_features"] = enc(features);
  env["variant_properties"] = enc(props);
}

std::vector<std::pair<std::string, std::string>> variant_marker_literals(const Requirement& r) {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<const MarkerNode*> stack;
  if (r.marker) stack.push_back(r.marker.get());
  while (!stack.empty()) {
    const MarkerNode* n = stack.back();
    stack.pop_back();
    for (const auto& c : n->children) stack.push_back(&c);
    if (n->kind != MarkerNode::compare) continue;
    if (n->lhs_var && !n->rhs_var && n->lhs == "variant_label") out.emplace_back(n->lhs, n->rhs);
    if (n->rhs_var && !n->lhs_var && (n->rhs == "variant_label" || variant_set_variable(n->rhs)))
      out.emplace_back(n->rhs, variant_set_variable(n->rhs) ? variant_normal(n->lhs) : n->lhs);
  }
  return out;
}

MarkerEnvironment environment_for(const WheelFilename& w) {
  MarkerEnvironment env{{"extra", ""}};
  // PEP 825: the label is the file name's; a wheel without one has no variant properties at all
  // (a variant wheel's come from its variant.json: add_variant_environment).
  env["variant_label"] = w.variant_label.value_or("");
  if (!w.variant_label) add_variant_environment(env, {});
  // What every platform tag of the wheel agrees on (a compressed tag set may span several).
  auto agree = [&](const std::string& key, const std::vector<std::string>& values) {
    if (values.empty()) return;
    for (const auto& v : values)
      if (v != values.front()) return;
    env[key] = values.front();
  };
  std::vector<std::string> sys, system, machine, os;
  for (const auto& t : w.platform_tags) {
    PlatformTag p = classify_platform(to_lower(t));
    switch (p.family) {
      case PlatformFamily::manylinux:
      case PlatformFamily::musllinux:
      case PlatformFamily::linux:
        sys.push_back("linux"), system.push_back("Linux"), os.push_back("posix"), machine.push_back(p.arch);
        break;
      case PlatformFamily::macos:
        sys.push_back("darwin"), system.push_back("Darwin"), os.push_back("posix");
        machine.push_back(p.arch == "universal2" || p.arch == "universal" || p.arch == "intel" ? "" : p.arch);
        break;
      case PlatformFamily::windows:
        sys.push_back("win32"), system.push_back("Windows"), os.push_back("nt");
        machine.push_back(p.arch == "amd64" ? "AMD64" : p.arch == "arm64" ? "ARM64" : p.arch == "x86" ? "x86" : "");
        break;
      case PlatformFamily::ios:
        sys.push_back("ios"), system.push_back("iOS"), os.push_back("posix"), machine.push_back(p.arch);
        break;
      case PlatformFamily::android:
        sys.push_back("android"), system.push_back("Android"), os.push_back("posix");
        machine.push_back(p.arch == "arm64_v8a"     ? "aarch64"
                          : p.arch == "armeabi_v7a" ? "armv7l"
                          : p.arch == "x86"         ? "i686"
                                                    : p.arch);
        break;
      default: return env;  // platform 'any' (or unknown): nothing platform-specific is known
    }
  }
  agree("sys_platform", sys);
  agree("platform_system", system);
  agree("os_name", os);
  if (std::find(machine.begin(), machine.end(), "") == machine.end()) agree("platform_machine", machine);
  std::vector<std::string> pyver, impl;
  for (const auto& py : w.python_tags) {
    std::string_view t = py;
    std::string name = consume(t, "cp") ? "cpython" : consume(t, "pp") ? "pypy" : consume(t, "py") ? "" : "?";
    size_t n = digit_prefix(t);
    if (name == "?" || n < 2 || n > 4 || n != t.size()) return env;
    if (!name.empty()) impl.push_back(name);
    pyver.push_back(std::string(t.substr(0, 1)) + "." + std::string(t.substr(1)));
  }
  if (impl.size() == w.python_tags.size()) agree("implementation_name", impl);
  if (!env.count("implementation_name") || env["implementation_name"] == "cpython") agree("python_version", pyver);
  return env;
}

}  // namespace wc
