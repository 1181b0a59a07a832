#include "report/report.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <tuple>

#include "catalog/catalog.h"
#include "rules/supply_chain/provenance_rules.h"
#include "rules/supply_chain/sbom_rules.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {

using nlohmann::json;

bool RunReport::all_pass() const {
  for (const auto& i : items)
    if (!i.pass()) return false;
  return !set || set->pass();
}

bool parse_format(const std::string& s, Format& out) {
  static const std::map<std::string, Format> m = {{"text", Format::text},
                                                  {"json", Format::json},
                                                  {"junit", Format::junit},
                                                  {"github", Format::github},
                                                  {"sarif", Format::sarif}};
  auto it = m.find(s);
  if (it == m.end()) return false;
  out = it->second;
  return true;
}

namespace {

struct Counts {
  size_t passed = 0, failed = 0, skipped = 0, errors = 0, warnings = 0;
};

Counts count(const RunReport& r) {
  Counts c;
  for (const auto& i : r.items) {
    if (i.skipped)
      ++c.skipped;
    else if (i.pass())
      ++c.passed;
    else
      ++c.failed;
    for (const auto& f : i.findings) (f.severity == Severity::error ? c.errors : c.warnings)++;
  }
  if (r.set)
    for (const auto& f : r.set->findings) (f.severity == Severity::error ? c.errors : c.warnings)++;
  return c;
}

bool remote(const std::string& path) { return path.rfind("http://", 0) == 0 || path.rfind("https://", 0) == 0; }

json findings_json(const std::vector<Finding>& fs) {
  json out = json::array();
  for (const auto& f : fs) {
    json x = {{"rule", f.rule}, {"severity", severity_name(f.severity)}, {"message", f.message}};
    if (!f.entry.empty()) x["entry"] = f.entry;
    if (f.offset) x["offset"] = *f.offset;
    if (!f.repeats.empty()) {  // a folded finding: every location, the first one too
      json locations = json::array();
      for (size_t k = 0; k <= f.repeats.size(); ++k) {
        const Finding& at = k ? f.repeats[k - 1] : f;
        json l = {{"entry", at.entry}, {"message", at.message}};
        if (at.offset) l["offset"] = *at.offset;
        locations.push_back(l);
      }
      x["locations"] = locations;
    }
    out.push_back(x);
  }
  return out;
}

json waived_json(const std::vector<WaivedFinding>& ws) {
  json out = json::array();
  for (const auto& w : ws) {
    json x = {{"rule", w.finding.rule},
              {"severity", severity_name(w.finding.severity)},
              {"message", w.finding.message},
              {"reason", w.reason}};
    if (!w.finding.entry.empty()) x["entry"] = w.finding.entry;
    out.push_back(x);
  }
  return out;
}

const char* paint(bool on, const char* code) { return on ? code : ""; }

// "1 wheel", "3 wheels", "1 case": the plural words are the report's item keys.
std::string count_of(const RunReport& r) {
  std::string word = r.item_label.empty() ? r.items_key : r.item_label;
  const size_t sdists = static_cast<size_t>(
      std::count_if(r.items.begin(), r.items.end(), [](const ItemResult& i) { return i.kind == "sdist"; }));
  if (sdists && word == "wheels") {  // "3 wheels and 1 sdist"
    const size_t wheels = r.items.size() - sdists;
    return (wheels ? std::to_string(wheels) + (wheels == 1 ? " wheel and " : " wheels and ") : std::string()) +
           std::to_string(sdists) + (sdists == 1 ? " sdist" : " sdists");
  }
  if (r.items.size() == 1 && word.size() > 1 && word.back() == 's') word.pop_back();
  return std::to_string(r.items.size()) + " " + word;
}

// "entry: ", or for a folded finding its first few entries and a count ("a.so, b.so, c.so and 17
// more: ").
std::string where(const Finding& f) {
  if (f.entry.empty()) return "";
  std::string out = clip_for_display(f.entry, 200);
  constexpr size_t kShown = 3;
  for (size_t k = 0; k < f.repeats.size() && k + 1 < kShown; ++k)
    out += ", " + clip_for_display(f.repeats[k].entry, 200);
  if (f.repeats.size() + 1 > kShown) out += " and " + std::to_string(f.repeats.size() + 1 - kShown) + " more";
  return out + ": ";
}

}  // namespace

namespace {

// The message with every mention of the entry (its whole path, then its file name) taken out,
// where it stands as a name of its own: x.so inside "needs libx.so" is another library's name.
std::string without_entry(const Finding& f) {
  auto name_char = [](char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.' || c == '+'; };
  std::string m = f.message;
  std::string_view base = f.entry;
  if (auto slash = base.rfind('/'); slash != std::string_view::npos) base.remove_prefix(slash + 1);
  for (std::string_view name : {std::string_view(f.entry), base}) {
    if (name.empty()) continue;
    for (size_t at = 0; (at = m.find(name, at)) != std::string::npos;) {
      size_t end = at + name.size();
      bool alone = (at == 0 || (!name_char(m[at - 1]) && m[at - 1] != '/')) && (end == m.size() || !name_char(m[end]));
      if (alone)
        m.replace(at, name.size(), "\x01"), at += 1;
      else
        at = end;
    }
  }
  return m;
}

}  // namespace

void fold_repeats(std::vector<Finding>& fs) {
  std::map<std::tuple<std::string, Severity, std::string>, size_t> first;  // key -> index in `out`
  std::vector<Finding> out;
  out.reserve(fs.size());
  for (auto& f : fs) {
    if (f.entry.empty() || !f.repeats.empty()) {
      out.push_back(std::move(f));
      continue;
    }
    auto [it, fresh] = first.try_emplace({f.rule, f.severity, without_entry(f)}, out.size());
    if (fresh)
      out.push_back(std::move(f));
    else
      out[it->second].repeats.push_back(std::move(f));
  }
  fs = std::move(out);
}

void fold_repeats(RunReport& r) {
  for (auto& i : r.items) fold_repeats(i.findings);
  if (r.set) fold_repeats(r.set->findings);
}

void write_text(const RunReport& r, std::ostream& out, const TextOptions& opt) {
  const bool c = opt.color;
  const char *red = paint(c, "\033[31m"), *yellow = paint(c, "\033[33m"), *green = paint(c, "\033[32m"),
             *dim = paint(c, "\033[2m"), *bold = paint(c, "\033[1m"), *reset = paint(c, "\033[0m");
  for (const auto& i : r.items) {
    if (i.pass() && !opt.show_passing && i.findings.empty()) continue;
    if (i.skipped)
      out << yellow << "SKIP" << reset;
    else if (i.pass())
      out << green << "PASS" << reset;
    else
      out << red << bold << "FAIL" << reset;
    out << "  " << escape_for_display(i.path) << "\n";
    if (i.skipped && !i.skip_reason.empty()) out << "        " << dim << i.skip_reason << reset << "\n";
    for (const auto& n : i.notes) out << "        " << dim << escape_for_display(n) << reset << "\n";
    if (std::string sbom = sbom_summary_line(i.sbom); !sbom.empty())
      out << "        " << dim << escape_for_display(sbom) << reset << "\n";
    if (std::string prov = provenance_summary_line(i.provenance); !prov.empty())
      out << "        " << dim << escape_for_display(prov) << reset << "\n";
    if (!i.waived.empty())
      out << "  " << dim << "waived " << i.waived.size() << " finding" << (i.waived.size() == 1 ? "" : "s") << " ("
          << escape_for_display(i.waived.front().finding.rule + ": " + i.waived.front().reason)
          << (i.waived.size() > 1 ? ", ..." : "") << ")" << reset << "\n";
    if (remote(i.path) && i.size)
      out << "        " << dim << "read " << human_bytes(i.bytes_read) << " of " << human_bytes(i.size)
          << (i.requests ? " in " + std::to_string(i.requests) + " request" + (i.requests == 1 ? "" : "s") + " over " +
                               std::to_string(i.connections) + " new connection" + (i.connections == 1 ? "" : "s")
                         : "")
          << reset << "\n";
    for (const auto& f : i.findings) {
      bool err = f.severity == Severity::error;
      out << "  " << (err ? red : yellow) << (err ? "error  " : "warning") << reset << " " << bold << f.rule << reset
          << "  " << dim << where(f) << reset << escape_for_display(f.message) << "\n";
    }
  }
  if (r.set) {
    const SetSection& st = *r.set;
    out << (st.pass() ? green : red) << (st.pass() ? "PASS" : "FAIL") << reset << "  release set: " << st.members
        << " wheel" << (st.members == 1 ? "" : "s");
    if (!st.baseline.empty())
      out << ", " << st.baseline_matched << " compared with " << escape_for_display(st.baseline);
    out << "\n";
    if (!st.waived.empty())
      out << "  " << dim << "waived " << st.waived.size() << " set finding" << (st.waived.size() == 1 ? "" : "s")
          << reset << "\n";
    for (const auto& f : st.findings) {
      bool err = f.severity == Severity::error;
      out << "  " << (err ? red : yellow) << (err ? "error  " : "warning") << reset << " " << bold << f.rule << reset
          << "  " << dim << where(f) << reset << escape_for_display(f.message) << "\n";
    }
  } else if (!r.set_note.empty()) {
    out << dim << r.set_note << reset << "\n";
  }
  if (!r.dependencies.empty() || !r.dependency_notes.empty()) {
    out << dim << r.dependencies.size() << " dependency wheel" << (r.dependencies.size() == 1 ? "" : "s")
        << " read for install sets (--resolve-deps)" << reset << "\n";
    for (const auto& d : r.dependencies) out << dim << "  " << clip_for_display(d, 300) << reset << "\n";
    for (const auto& n : r.dependency_notes) out << dim << "  " << clip_for_display(n, 300) << reset << "\n";
  }
  for (const auto& t : r.target_notes) out << yellow << "note: " << reset << clip_for_display(t, 400) << "\n";
  for (const auto& c : r.variant_choices) {
    out << "installer picks for " << c.project << " " << c.version << " (" << c.tags
        << "): " << (c.selected_wheel.empty() ? "no compatible wheel" : escape_for_display(c.selected_wheel));
    if (c.selected_runs)
      out << (*c.selected_runs ? " - its GPU code runs there" : " - but its GPU code does NOT run there");
    out << "\n";
    if (c.order.size() > 1) out << "  order: " << escape_for_display(join(c.order, " > ")) << "\n";
    if (!c.incompatible.empty()) out << "  incompatible: " << escape_for_display(join(c.incompatible, ", ")) << "\n";
  }
  Counts n = count(r);
  out << "\n"
      << count_of(r) << ": " << green << n.passed << " passed" << reset << ", " << (n.failed ? red : "") << n.failed
      << " failed" << reset;
  if (n.skipped) out << ", " << yellow << n.skipped << " skipped" << reset;
  out << "; " << n.errors << " errors, " << n.warnings << " warnings";
  if (!r.policy.empty()) {
    // A policy file is named by its path (the one actually used), with the policy it names itself.
    bool file = r.policy_source.find('/') != std::string::npos || r.policy_source.ends_with(".json");
    out << " (policy "
        << (file ? r.policy_source + (r.policy_source != r.policy ? ", named " + r.policy : "") : r.policy) << ")";
  }
  out << "\n";
  if (r.depth == "metadata")
    out << dim
        << "--depth metadata: archive structure, dist-info and binary headers checked; content hashes, needed "
           "libraries, "
        << "symbol versions, undefined symbols (not resolved: WC514) and GPU code were not read" << reset << "\n";
}

namespace {

json item_to_json(const ItemResult& i) {
  json item = {{"path", i.path},
               {"verdict", i.skipped  ? "skip"
                           : i.pass() ? "pass"
                                      : "fail"},
               {"findings", findings_json(i.findings)}};
  if (!i.kind.empty()) item["kind"] = i.kind;
  if (!i.waived.empty()) item["waived"] = waived_json(i.waived);
  if (i.skipped) item["skip_reason"] = i.skip_reason;
  if (!i.notes.empty()) item["notes"] = i.notes;
  if (i.size || i.bytes_read) item["size"] = i.size, item["bytes_read"] = i.bytes_read;
  if (i.requests) item["requests"] = i.requests, item["connections"] = i.connections;
  if (!i.release.is_null()) item["release"] = i.release.get();
  if (!i.sbom.is_null()) item["sbom"] = i.sbom;
  if (!i.provenance.is_null()) item["provenance"] = i.provenance;
  if (!i.facts.is_null()) item["facts"] = i.facts;
  return item;
}

// Everything of the report but its items.
json report_head_json(const RunReport& r) {
  Counts n = count(r);
  json j = {{"schema", "wheelcheck-report/1"}, {"tool", r.tool}, {"version", r.version}, {"policy", r.policy}};
  if (!r.policy_source.empty()) j["policy_source"] = r.policy_source;
  if (!r.depth.empty()) j["depth"] = r.depth;
  if (r.shard)
    j["shard"] = {{"index", r.shard->index},
                  {"count", r.shard->count},
                  {"targets", r.shard->targets},
                  {"digest", r.shard->digest}};
  if (r.set) {
    json st = {{"members", r.set->members},
               {"verdict", r.set->pass() ? "pass" : "fail"},
               {"findings", findings_json(r.set->findings)}};
    if (!r.set->waived.empty()) st["waived"] = waived_json(r.set->waived);
    if (!r.set->baseline.empty()) st["baseline"] = r.set->baseline, st["baseline_matched"] = r.set->baseline_matched;
    j["set"] = st;
  } else if (!r.set_note.empty()) {
    j["set_note"] = r.set_note;
  }
  if (!r.dependencies.empty() || !r.dependency_notes.empty()) {
    j["dependencies"] = r.dependencies;
    j["dependency_notes"] = r.dependency_notes;
  }
  if (!r.target_notes.empty()) j["target_notes"] = r.target_notes;
  if (!r.variant_choices.empty()) {
    json cs = json::array();
    for (const auto& c : r.variant_choices) {
      json x = {
          {"project", c.project}, {"version", c.version},
          {"tags", c.tags},       {"selected_wheel", c.selected_wheel.empty() ? json(nullptr) : json(c.selected_wheel)},
          {"order", c.order},     {"incompatible", c.incompatible}};
      if (c.selected_runs) x["selected_runs"] = *c.selected_runs;
      cs.push_back(x);
    }
    j["variant_selection"] = cs;
  }
  j["summary"] = {{"total", r.items.size()},
                  {"passed", n.passed},
                  {"failed", n.failed},
                  {"skipped", n.skipped},
                  {"errors", n.errors},
                  {"warnings", n.warnings},
                  {"verdict", r.all_pass() ? "pass" : "fail"}};
  return j;
}

}  // namespace

json report_to_json(const RunReport& r) {
  json j = report_head_json(r);
  json items = json::array();
  for (const auto& i : r.items) items.push_back(item_to_json(i));
  j[r.items_key] = std::move(items);
  return j;
}

void write_json(const RunReport& r, std::ostream& out) {
  // Names from archives may be any bytes: invalid UTF-8 is replaced rather than thrown on. The
  // head's keys in their order (a json object's), the items' key among them, each item's tree made
  // and written in turn: the layout of dump(2) exactly, which report_to_json's callers also see.
  nlohmann::detail::serializer<json> s(nlohmann::detail::output_adapter<char>(out), ' ',
                                       json::error_handler_t::replace);
  json head = report_head_json(r);
  head[r.items_key] = nullptr;  // its place among the keys
  out << "{\n";
  size_t k = 0;
  for (const auto& [key, value] : head.items()) {
    out << "  \"" << key << "\": ";  // the keys are this file's own, plain ASCII
    if (key != r.items_key) {
      s.dump(value, true, false, 2, 2);
    } else if (r.items.empty()) {
      out << "[]";
    } else {
      out << "[\n";
      for (size_t i = 0; i < r.items.size(); ++i) {
        out << "    ";
        s.dump(item_to_json(r.items[i]), true, false, 2, 4);
        out << (i + 1 < r.items.size() ? ",\n" : "\n");
      }
      out << "  ]";
    }
    out << (++k < head.size() ? ",\n" : "\n");
  }
  out << "}\n";
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char ch : escape_for_display(s)) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += ch;
    }
  }
  return out;
}

// Element text of several lines: each line made displayable and escaped, the newlines kept (the
// display escaper alone would turn them into the literal text \x0a).
static std::string xml_lines(const std::string& s) {
  std::string out;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    out += xml_escape(s.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

void write_junit(const RunReport& r, std::ostream& out) {
  Counts n = count(r);
  size_t tests = r.items.size() + (r.set ? 1 : 0), failures = n.failed + (r.set && !r.set->pass() ? 1 : 0);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  // Jenkins' junit-10.xsd: no `skipped` on <testsuites>; `errors` required on <testsuite>.
  out << "<testsuites name=\"" << r.tool << "\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" errors=\"0\">\n";
  out << "  <testsuite name=\"" << r.tool << (r.policy.empty() ? "" : " (" + xml_escape(r.policy) + ")")
      << "\" tests=\"" << tests << "\" failures=\"" << failures << "\" errors=\"0\" skipped=\"" << n.skipped << "\">\n";
  for (const auto& i : r.items) {
    // The kind in the class name: CI test views group "wheelcheck.sdist" apart from the wheels.
    out << "    <testcase classname=\"" << r.tool << (i.kind.empty() ? "" : "." + xml_escape(i.kind)) << "\" name=\""
        << xml_escape(i.path) << "\">\n";
    std::string body;
    size_t errors = 0;
    for (const auto& f : i.findings) {
      errors += f.severity == Severity::error;
      body += std::string(severity_name(f.severity)) + " " + f.rule + " " + where(f) + f.message + "\n";
    }
    if (i.skipped) {
      out << "      <skipped message=\"" << xml_escape(i.skip_reason) << "\"/>\n";
    } else if (!i.pass()) {
      out << "      <failure message=\"" << errors << " error finding(s)\" type=\"" << r.tool << "\">"
          << xml_lines(body) << "</failure>\n";
    } else if (!body.empty()) {
      out << "      <system-out>" << xml_lines(body) << "</system-out>\n";
    }
    out << "    </testcase>\n";
  }
  if (r.set) {  // the release set is one more test case
    out << "    <testcase classname=\"" << r.tool << "\" name=\"release set\">\n";
    std::string body;
    for (const auto& f : r.set->findings)
      body += std::string(severity_name(f.severity)) + " " + f.rule + " " + where(f) + f.message + "\n";
    if (!r.set->pass())
      out << "      <failure message=\"release set\" type=\"" << r.tool << "\">" << xml_lines(body) << "</failure>\n";
    else if (!body.empty())
      out << "      <system-out>" << xml_lines(body) << "</system-out>\n";
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

// Workflow commands: property values escape %, \r, \n, ':' and ','; messages escape %, \r, \n.
static std::string gh_escape(const std::string& s, bool property) {
  std::string out;
  for (char ch : escape_for_display(s)) {
    if (ch == '%')
      out += "%25";
    else if (ch == '\r')
      out += "%0D";
    else if (ch == '\n')
      out += "%0A";
    else if (property && ch == ':')
      out += "%3A";
    else if (property && ch == ',')
      out += "%2C";
    else
      out += ch;
  }
  return out;
}

void write_github(const RunReport& r, std::ostream& out) {
  for (const auto& i : r.items) {
    for (const auto& f : i.findings) {
      out << "::" << (f.severity == Severity::error ? "error" : "warning") << " file=" << gh_escape(i.path, true)
          << ",title=" << gh_escape(f.rule + (f.entry.empty() ? "" : " " + clip_for_display(f.entry, 200)), true)
          << "::" << gh_escape(f.repeats.empty() ? f.message : where(f) + f.message, false) << "\n";
    }
  }
  if (r.set)
    for (const auto& f : r.set->findings)
      out << "::" << (f.severity == Severity::error ? "error" : "warning")
          << " title=" << gh_escape(f.rule + " release set", true) << "::" << gh_escape(where(f) + f.message, false)
          << "\n";
  Counts n = count(r);
  out << count_of(r) << ": " << n.passed << " passed, " << n.failed << " failed";
  if (r.set) out << "; release set " << (r.set->pass() ? "passed" : "failed");
  out << "\n";
}

std::string github_summary_markdown(const RunReport& r) {
  Counts n = count(r);
  std::string md = "## " + r.tool + ": " + (r.all_pass() ? "pass" : "fail") + "\n\n";
  md += count_of(r) + ": " + std::to_string(n.passed) + " passed, " + std::to_string(n.failed) + " failed; " +
        std::to_string(n.errors) + " errors, " + std::to_string(n.warnings) + " warnings" +
        (r.policy.empty() ? "" : " (policy `" + r.policy + "`)") + "\n\n";
  md += "| verdict | " + std::string(r.items_key == "wheels" ? "wheel" : "item") +
        " | errors | warnings | rules |\n|---|---|---|---|---|\n";
  for (const auto& i : r.items) {
    size_t e = 0, w = 0;
    std::map<std::string, int> rules;
    for (const auto& f : i.findings) {
      (f.severity == Severity::error ? e : w)++;
      rules[f.rule]++;
    }
    std::string rl;
    for (const auto& [id, k] : rules) rl += (rl.empty() ? "" : ", ") + id + (k > 1 ? " x" + std::to_string(k) : "");
    std::string path = escape_for_display(i.path);
    for (auto& ch : path)
      if (ch == '|') ch = '/';
    md += std::string("| ") +
          (i.skipped  ? "skip"
           : i.pass() ? "pass"
                      : "**fail**") +
          " | `" + path + "` | " + std::to_string(e) + " | " + std::to_string(w) + " | " + rl + " |\n";
  }
  if (r.set) {
    md += "\n### Release set: " + std::string(r.set->pass() ? "pass" : "**fail**") + " (" +
          std::to_string(r.set->members) + " wheels)\n\n";
    for (const auto& f : r.set->findings) {
      std::string line = escape_for_display((f.entry.empty() ? "" : f.entry + ": ") + f.message);
      md += "- " + std::string(severity_name(f.severity)) + " " + f.rule + ": " + line + "\n";
    }
  }
  return md;
}

// A path as a SARIF artifactLocation.uri: a URI reference, so every byte outside RFC 3986's
// unreserved set and '/' is percent-encoded (a space in a path fails the OASIS schema); URLs are
// already URIs.
static std::string uri_reference(const std::string& path) {
  if (path.rfind("http://", 0) == 0 || path.rfind("https://", 0) == 0) return path;
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (is_alnum(static_cast<char>(c)) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

void write_sarif(const RunReport& r, std::ostream& out) {
  json rules = json::array();
  std::map<std::string, size_t> index;
  for (const auto& info : r.rules) {
    index[info.id] = rules.size();
    rules.push_back(
        {{"id", info.id},
         {"shortDescription", {{"text", info.title}}},
         {"defaultConfiguration", {{"level", info.default_severity == Severity::error ? "error" : "warning"}}}});
  }
  json results = json::array();
  // One result per location: a folded finding's repeats are results of their own (code scanning
  // tracks and dismisses each).
  for (const auto& i : r.items)
    for (const auto& folded : i.findings)
      for (size_t k = 0; k <= folded.repeats.size(); ++k) {
        const Finding& f = k ? folded.repeats[k - 1] : folded;
        json loc = {{"physicalLocation", {{"artifactLocation", {{"uri", uri_reference(i.path)}}}}}};
        if (!f.entry.empty())
          loc["logicalLocations"] = json::array({{{"fullyQualifiedName", f.entry}, {"kind", "member"}}});
        json res = {{"ruleId", f.rule},
                    {"level", f.severity == Severity::error ? "error" : "warning"},
                    {"message", {{"text", (f.entry.empty() ? "" : f.entry + ": ") + f.message}}},
                    {"locations", json::array({loc})}};
        if (index.count(f.rule)) res["ruleIndex"] = index[f.rule];
        if (!i.kind.empty()) res["properties"] = {{"artifactKind", i.kind}};
        results.push_back(res);
      }
  // Findings on the set: located at the wheel they name, else at the policy that declared the set.
  // Every result has a location: GitHub's upload-sarif rejects the whole file otherwise.
  if (r.set)
    for (const auto& folded : r.set->findings)
      for (size_t k = 0; k <= folded.repeats.size(); ++k) {
        const Finding& f = k ? folded.repeats[k - 1] : folded;
        json res = {{"ruleId", f.rule},
                    {"level", f.severity == Severity::error ? "error" : "warning"},
                    {"message", {{"text", "release set: " + (f.entry.empty() ? "" : f.entry + ": ") + f.message}}}};
        std::string where = !f.entry.empty()           ? f.entry
                            : !r.policy_source.empty() ? r.policy_source
                            : r.policy.empty()         ? r.tool
                                                       : r.policy;
        res["locations"] =
            json::array({{{"physicalLocation", {{"artifactLocation", {{"uri", uri_reference(where)}}}}}}});
        if (index.count(f.rule)) res["ruleIndex"] = index[f.rule];
        results.push_back(res);
      }
  json doc = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", json::array({{{"tool", {{"driver", {{"name", r.tool}, {"version", r.version}, {"rules", rules}}}}},
                             {"results", results}}})}};
  out << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

static ColorMode g_color = ColorMode::automatic;
void set_color_mode(ColorMode m) { g_color = m; }

static bool color_wanted(const std::string& path) {
  if (!path.empty() || g_color == ColorMode::never) return false;
  if (g_color == ColorMode::always) return true;
  auto set = [](const char* name) {
    const char* v = std::getenv(name);
    return v && *v;
  };
  if (set("NO_COLOR")) return false;  // no-color.org: only a non-empty value counts
  if (set("FORCE_COLOR")) return true;
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) && !(term && std::string(term) == "dumb");
}

void write_reports(const RunReport& r, const std::vector<ReportTarget>& targets) {
  for (const auto& t : targets) {
    TextOptions topt{color_wanted(t.path), true};
    if (t.path.empty()) {
      write_report(r, t.format, std::cout, topt);
      continue;
    }
    std::ofstream out(t.path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write report " + t.path);
    write_report(r, t.format, out, topt);
  }
  const char* summary = std::getenv("GITHUB_STEP_SUMMARY");
  bool github =
      std::any_of(targets.begin(), targets.end(), [](const ReportTarget& t) { return t.format == Format::github; });
  if (summary && *summary && github) std::ofstream(summary, std::ios::app) << github_summary_markdown(r) << "\n";
}

void write_report(const RunReport& r, Format f, std::ostream& out, const TextOptions& opt) {
  switch (f) {
    case Format::text: write_text(r, out, opt); break;
    case Format::json: write_json(r, out); break;
    case Format::junit: write_junit(r, out); break;
    case Format::github: write_github(r, out); break;
    case Format::sarif: write_sarif(r, out); break;
  }
}

}  // namespace wc
