#include "pipeline/diff.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "io/targets.h"
#include "pipeline/check.h"
#include "rules/release/release_set.h"
#include "util/strings.h"

namespace wc {
namespace {

bool is_report(const std::string& target) {
  return target.ends_with(".json") && std::filesystem::is_regular_file(target);
}

std::string top_folder(const std::string& entry) {
  auto slash = entry.find('/');
  std::string top = slash == std::string::npos ? "(top level)" : entry.substr(0, slash);
  // The .dist-info and .data folders pair across the version change.
  for (const char* suffix : {".dist-info", ".data"})
    if (top.ends_with(suffix)) top = "*" + std::string(suffix);
  return top;
}

std::string paired_name(const std::string& entry) {
  auto slash = entry.find('/');
  if (slash == std::string::npos) return entry;
  return top_folder(entry) + entry.substr(slash);
}

EntryChanges compare_entries(const std::map<std::string, std::pair<uint64_t, std::string>>& before,
                             const std::map<std::string, std::pair<uint64_t, std::string>>& now) {
  EntryChanges e;
  std::map<std::string, const std::pair<uint64_t, std::string>*> old;
  for (const auto& [name, v] : before) {
    if (name.ends_with(".dist-info/RECORD")) continue;
    old[paired_name(name)] = &v;
    e.bytes_old += v.first;
    e.by_folder[top_folder(name)].first += v.first;
  }
  std::set<std::string> seen;
  for (const auto& [name, v] : now) {
    if (name.ends_with(".dist-info/RECORD")) continue;
    std::string key = paired_name(name);
    seen.insert(key);
    e.bytes_new += v.first;
    e.by_folder[top_folder(name)].second += v.first;
    auto it = old.find(key);
    if (it == old.end())
      e.added.push_back(name);
    else if (it->second->second != v.second || it->second->first != v.first)
      e.changed.push_back(name);
  }
  for (const auto& [key, v] : old)
    if (!seen.count(key)) e.removed.push_back(key);
  return e;
}

nlohmann::json added_json(const Added& a) { return {{"added", a.added}, {"removed", a.removed}}; }

nlohmann::json finding_json(const Finding& f) {
  return {{"rule", f.rule}, {"severity", severity_name(f.severity)}, {"entry", f.entry}, {"message", f.message}};
}

std::string list(const std::vector<std::string>& v, size_t n = 8) { return join_shown(v, n); }

// One line per change, worst (the findings) first.
std::vector<std::string> change_lines(const DiffPair& p) {
  std::vector<std::string> out;
  const PairChanges& c = p.changes;
  if (!c.tags.first.empty() || !c.tags.second.empty()) out.push_back("tags " + c.tags.first + " -> " + c.tags.second);
  if (c.requires_python.first != c.requires_python.second)
    out.push_back("Requires-Python '" + c.requires_python.first + "' -> '" + c.requires_python.second + "'");
  if (!c.requires_dist.added.empty()) out.push_back("Requires-Dist added: " + list(c.requires_dist.added));
  if (!c.requires_dist.removed.empty()) out.push_back("Requires-Dist removed: " + list(c.requires_dist.removed));
  if (!c.requires_dist_changed.empty()) out.push_back("Requires-Dist changed: " + list(c.requires_dist_changed));
  if (!c.entry_points.added.empty()) out.push_back("entry points added: " + list(c.entry_points.added));
  if (!c.entry_points.removed.empty()) out.push_back("entry points removed: " + list(c.entry_points.removed));
  if (!c.top_level.added.empty()) out.push_back("top-level names added: " + list(c.top_level.added));
  if (!c.top_level.removed.empty()) out.push_back("top-level names removed: " + list(c.top_level.removed));
  if (p.entries) {
    const EntryChanges& e = *p.entries;
    out.push_back("entries: " + std::to_string(e.added.size()) + " added, " + std::to_string(e.removed.size()) +
                  " removed, " + std::to_string(e.changed.size()) + " changed; " + human_bytes(e.bytes_old) + " -> " +
                  human_bytes(e.bytes_new));
    std::vector<std::pair<int64_t, std::string>> growth;
    for (const auto& [folder, b] : e.by_folder)
      if (b.first != b.second) growth.push_back({int64_t(b.second) - int64_t(b.first), folder});
    std::sort(growth.begin(), growth.end(),
              [](const auto& a, const auto& b) { return std::llabs(a.first) > std::llabs(b.first); });
    for (size_t i = 0; i < growth.size() && i < 5; ++i) {
      const auto& b = e.by_folder.at(growth[i].second);
      out.push_back("  " + growth[i].second + "/ " + human_bytes(b.first) + " -> " + human_bytes(b.second));
    }
  }
  for (const auto& b : c.binaries.added) out.push_back("binary added: " + b);
  for (const auto& b : c.binaries.removed) out.push_back("binary removed: " + b);
  for (const auto& b : c.changed_binaries) {
    std::vector<std::string> parts;
    if (b.old_path != b.path) parts.push_back("was " + b.old_path + " (" + b.matched + ")");
    if (!b.needed.added.empty()) parts.push_back("needs +" + list(b.needed.added, 4));
    if (!b.needed.removed.empty()) parts.push_back("needs -" + list(b.needed.removed, 4));
    for (const auto& [k, v] : b.floors) parts.push_back(k + " " + v.first + " -> " + v.second);
    if (!b.sass.added.empty()) parts.push_back("SASS +" + list(b.sass.added));
    if (!b.sass.removed.empty()) parts.push_back("SASS -" + list(b.sass.removed));
    if (!b.ptx.added.empty()) parts.push_back("PTX +" + list(b.ptx.added));
    if (!b.ptx.removed.empty()) parts.push_back("PTX -" + list(b.ptx.removed));
    if (b.exports_added || !b.removed_names.empty())
      parts.push_back("exports +" + std::to_string(b.exports_added) + " -" + std::to_string(b.removed_names.size()) +
                      (b.removed_stable || b.removed_unstable
                           ? " (" + std::to_string(b.removed_stable) + " stable shims, " +
                                 std::to_string(b.removed_unstable) + " unstable C++)"
                           : ""));
    out.push_back(b.path + ": " + join(parts, "; "));
  }
  for (const auto& [lib, v] : c.bundled) out.push_back("bundled " + lib + " " + v.first + " -> " + v.second);
  return out;
}

}  // namespace

DiffSide load_diff_side(const std::string& target, const std::string& match, const Policy& p, unsigned jobs) {
  DiffSide side;
  if (is_report(target)) {
    side.from_report = true;
    side.members = read_baseline(target);
    side.entries.resize(side.members.size());
    if (side.members.empty()) throw std::runtime_error(target + ": the report lists no wheels to compare");
    return side;
  }
  auto paths = expand_targets({target}, match);
  if (paths.empty()) throw std::runtime_error(target + ": no wheels found");
  AnalyzeOptions opt = analyze_options_for(p);
  // One wheel at a time keeps memory flat in the number of wheels: only its summary stays.
  for (const auto& path : paths) {
    auto facts = analyze_all(std::vector<std::string>{path}, opt, jobs);
    const WheelFacts& f = facts.at(0);
    if (!f.filename.valid) throw std::runtime_error(path + ": not a wheel file name");
    side.members.push_back(summarize(f, p));
    auto& e = side.entries.emplace_back();
    for (const auto& x : f.entries)
      if (x.kind == EntryKind::file) e[x.name] = {x.size, x.sha256};
  }
  return side;
}

bool DiffResult::regression() const {
  auto errs = [](const std::vector<Finding>& fs) {
    return std::any_of(fs.begin(), fs.end(), [](const Finding& f) { return f.severity == Severity::error; });
  };
  return errs(set_findings) ||
         std::any_of(pairs.begin(), pairs.end(), [&](const DiffPair& p) { return errs(p.findings); });
}

DiffResult diff_sides(const DiffSide& before, const DiffSide& now, const Policy& p) {
  DiffResult r;
  std::map<std::string, size_t> old_by_key;
  for (size_t i = 0; i < before.members.size(); ++i) old_by_key.emplace(pairing_key(before.members[i]), i);
  std::set<std::string> needed;
  collect_needed(before.members, needed);
  collect_needed(now.members, needed);
  std::set<size_t> used;
  for (size_t i = 0; i < now.members.size(); ++i) {
    auto it = old_by_key.find(pairing_key(now.members[i]));
    if (it == old_by_key.end() || used.count(it->second)) {
      r.added.push_back(now.members[i].filename);
      continue;
    }
    used.insert(it->second);
    DiffPair d;
    d.changes = compare_members(before.members[it->second], now.members[i]);
    if (!before.from_report && !now.from_report)
      d.entries = compare_entries(before.entries[it->second], now.entries[i]);
    FindingSink s(p);
    pair_regressions(d.changes, p, needed, s);
    // WC702 too, from the sizes both sides carry.
    std::vector<SetMember> base{before.members[it->second]};
    SetVerdict size = check_release_set({now.members[i]}, p, &base);
    d.findings = s.take();
    d.waived = s.take_waived();
    for (auto& f : size.findings)
      if (f.rule == "WC702") d.findings.push_back(std::move(f));
    r.pairs.push_back(std::move(d));
  }
  for (size_t i = 0; i < before.members.size(); ++i)
    if (!used.count(i)) r.removed.push_back(before.members[i].filename);
  std::vector<const SetMember*> ms;
  for (const auto& m : now.members) ms.push_back(&m);
  FindingSink s(p);
  matrix_regressions(ms, before.members, s);
  r.set_findings = s.take();
  return r;
}

nlohmann::json diff_to_json(const DiffResult& r) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& d : r.pairs) {
    const PairChanges& c = d.changes;
    nlohmann::json ch;
    ch["tags"] = {{"old", c.before->platform_tags}, {"new", c.now->platform_tags}};
    ch["requires_python"] = {{"old", c.before->requires_python}, {"new", c.now->requires_python}};
    ch["requires_dist"] = added_json(c.requires_dist);
    ch["requires_dist"]["changed"] = c.requires_dist_changed;
    ch["entry_points"] = added_json(c.entry_points);
    ch["top_level"] = added_json(c.top_level);
    if (d.entries)
      ch["entries"] = {{"added", d.entries->added},
                       {"removed", d.entries->removed},
                       {"changed", d.entries->changed},
                       {"bytes_old", d.entries->bytes_old},
                       {"bytes_new", d.entries->bytes_new}};
    nlohmann::json bins = nlohmann::json::array();
    for (const auto& b : c.changed_binaries) {
      nlohmann::json x = {{"path", b.path},
                          {"matched", b.matched},
                          {"needed", added_json(b.needed)},
                          {"sass", added_json(b.sass)},
                          {"ptx", added_json(b.ptx)}};
      if (b.old_path != b.path) x["old_path"] = b.old_path;
      if (b.floors.count("GLIBC"))
        x["glibc"] = {{"old", b.floors.at("GLIBC").first}, {"new", b.floors.at("GLIBC").second}};
      nlohmann::json floors = nlohmann::json::object();
      for (const auto& [k, v] : b.floors) floors[k] = {{"old", v.first}, {"new", v.second}};
      x["floors"] = floors;
      if (b.exports_compared)
        x["exports"] = {{"added", b.exports_added},
                        {"removed", b.removed_names.size()},
                        {"removed_names", b.removed_names},
                        {"removed_stable_shims", b.removed_stable},
                        {"removed_unstable_cxx", b.removed_unstable}};
      bins.push_back(std::move(x));
    }
    ch["binaries"] = bins;
    ch["binaries_added"] = c.binaries.added;
    ch["binaries_removed"] = c.binaries.removed;
    nlohmann::json bundled = nlohmann::json::array();
    for (const auto& [lib, v] : c.bundled) bundled.push_back({{"library", lib}, {"old", v.first}, {"new", v.second}});
    ch["bundled"] = bundled;
    nlohmann::json fs = nlohmann::json::array();
    for (const auto& f : d.findings) fs.push_back(finding_json(f));
    for (const auto& w : d.waived) {
      auto j = finding_json(w.finding);
      j["waived"] = w.reason;
      fs.push_back(j);
    }
    pairs.push_back({{"old", c.before->filename}, {"new", c.now->filename}, {"changes", ch}, {"findings", fs}});
  }
  nlohmann::json set = nlohmann::json::array();
  for (const auto& f : r.set_findings) set.push_back(finding_json(f));
  return {{"schema", "wheelcheck-diff/1"}, {"pairs", pairs},  {"added", r.added},
          {"removed", r.removed},          {"findings", set}, {"regression", r.regression()}};
}

std::string diff_to_text(const DiffResult& r) {
  std::string out;
  for (const auto& d : r.pairs) {
    out += d.changes.before->filename + " -> " + d.changes.now->filename + "\n";
    for (const auto& f : d.findings)
      out += std::string("  ") + severity_name(f.severity) + " " + f.rule + "  " + f.entry + ": " + f.message + "\n";
    for (const auto& w : d.waived)
      out += "  waived " + w.finding.rule + "  " + w.finding.message + " (" + w.reason + ")\n";
    auto lines = change_lines(d);
    if (lines.empty()) out += "  no change\n";
    for (const auto& l : lines) out += "  " + l + "\n";
  }
  for (const auto& a : r.added) out += "added: " + a + "\n";
  for (const auto& a : r.removed) out += "removed: " + a + "\n";
  for (const auto& f : r.set_findings)
    out += std::string(severity_name(f.severity)) + " " + f.rule + "  " + f.message + "\n";
  out += r.regression() ? "regressions found\n" : "no regression\n";
  return out;
}

std::string diff_to_markdown(const DiffResult& r) {
  std::string out =
      "## wheelcheck diff: " + std::string(r.regression() ? "regressions found" : "no regression") + "\n\n";
  for (const auto& d : r.pairs) {
    out += "### `" + d.changes.before->filename + "` → `" + d.changes.now->filename + "`\n\n";
    for (const auto& f : d.findings)
      out +=
          std::string("- **") + severity_name(f.severity) + " " + f.rule + "** `" + f.entry + "`: " + f.message + "\n";
    for (const auto& l : change_lines(d)) out += "- " + l + "\n";
    out += "\n";
  }
  for (const auto& a : r.added) out += "- added: `" + a + "`\n";
  for (const auto& a : r.removed) out += "- removed: `" + a + "`\n";
  for (const auto& f : r.set_findings)
    out += std::string("- **") + severity_name(f.severity) + " " + f.rule + "**: " + f.message + "\n";
  return out;
}

}  // namespace wc
