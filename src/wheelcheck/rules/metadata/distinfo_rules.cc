// WC102 dist-info layout, WC103/WC104 the WHEEL file, WC201-WC203 METADATA.
#include <algorithm>
#include <set>

#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/py_text.h"

namespace wc {
namespace {

bool same_version(const std::string& a, const std::string& b) {
  auto va = parse_version(a), vb = parse_version(b);
  return va && vb ? compare(*va, *vb) == 0 && va->local == vb->local : a == b;
}

// "{name}-{version}" of a .dist-info or .data directory.
void check_dir_name(const WheelFacts& f, const std::string& dir, const char* suffix, FindingSink& s) {
  std::string stem = dir.substr(0, dir.size() - std::string(suffix).size());
  auto dash = stem.find('-');
  if (dash == std::string::npos || stem.find('-', dash + 1) != std::string::npos) {
    s.add("WC102", "'" + dir + "' is not named {name}-{version}" + suffix, dir + "/");
    return;
  }
  std::string name = stem.substr(0, dash), ver = stem.substr(dash + 1);
  if (f.filename.valid && canonicalize_name(name) != f.filename.canonical_name)
    s.add("WC102", "'" + dir + "' names project '" + name + "', the file name says '" + f.filename.name + "'",
          dir + "/");
  if (f.filename.valid && !same_version(ver, f.filename.version_text))
    s.add("WC102", "'" + dir + "' names version '" + ver + "', the file name says '" + f.filename.version_text + "'",
          dir + "/");
}

void layout(const WheelFacts& f, FindingSink& s) {
  if (f.dist_info_dirs.empty()) {
    s.add("WC102", "no .dist-info directory at the top level of the archive");
    return;
  }
  if (f.dist_info_dirs.size() > 1)
    s.add("WC102", "several .dist-info directories: " + join(f.dist_info_dirs, ", ") +
                       " (installers use one; the rest is ignored or conflicts)");
  for (const auto& d : f.dist_info_dirs) check_dir_name(f, d, ".dist-info", s);
  std::set<std::string> data_dirs;
  for (const auto& e : f.entries) {
    auto slash = e.name.find('/');
    if (slash != std::string::npos && e.name.substr(0, slash).ends_with(".data"))
      data_dirs.insert(e.name.substr(0, slash));
  }
  for (const auto& d : data_dirs) check_dir_name(f, d, ".data", s);
  for (const char* need : {"WHEEL", "METADATA", "RECORD"}) {
    if (!f.find_entry(f.dist_info + "/" + need)) {
      const char* rule = std::string(need) == "WHEEL" ? "WC104" : std::string(need) == "METADATA" ? "WC202" : "WC301";
      s.add(rule, f.dist_info + "/" + need + " is missing", f.dist_info + "/" + need);
    }
  }
}

void wheel_file(const WheelFacts& f, FindingSink& s) {
  if (!f.wheel_file) return;
  const HeaderFile& h = *f.wheel_file;
  const std::string entry = f.dist_info + "/WHEEL";
  for (const auto& p : h.problems) s.add("WC104", "WHEEL: " + p, entry);
  // WHEEL has no body: installers read the header block only, so fields after a blank line (a
  // header block written twice, as a 2020 wheel did) are silently dropped.
  if (!trim(h.body).empty()) {
    HeaderFile after = parse_header_file(h.body);
    std::vector<std::string> names;
    for (const auto& [k, v] : after.fields)
      if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
    s.add("WC104",
          names.empty() ? "WHEEL has text after a blank line; installers read only the header block before it"
                        : "WHEEL has fields after a blank line, which installers ignore (they read only the header "
                          "block before it): " +
                              clip_for_display(join(names, ", "), 200),
          entry, std::nullopt, Severity::warning);
  }
  // Single-valued fields installers act on, given twice: readers that take the first
  // (email.parser) and readers that take the last see different wheels when the values differ.
  // (Generator is informational: delocate and auditwheel append their own line by design.)
  for (const char* field : {"Wheel-Version", "Root-Is-Purelib", "Build"}) {
    auto all = h.get_all(field);
    if (all.size() < 2) continue;
    bool differ = std::any_of(all.begin(), all.end(), [&](const std::string& v) { return v != all.front(); });
    if (differ)
      s.add("WC104",
            std::string(field) + " is given " + std::to_string(all.size()) + " times with different values ('" +
                clip_for_display(all.front()) + "', '" + clip_for_display(all.back()) +
                "'): installers that read the first and the last disagree",
            entry);
    else
      s.add("WC104", std::string(field) + " is given " + std::to_string(all.size()) + " times", entry, std::nullopt,
            Severity::warning);
  }
  auto wv = h.get("Wheel-Version");
  if (!wv) {
    s.add("WC104", "WHEEL has no Wheel-Version", entry);
  } else {
    auto parts = split(*wv, '.');
    bool numeric = parts.size() == 2 && !parts[0].empty() && !parts[1].empty() &&
                   parts[0].find_first_not_of("0123456789") == std::string_view::npos &&
                   parts[1].find_first_not_of("0123456789") == std::string_view::npos;
    if (!numeric)
      s.add("WC104", "Wheel-Version '" + *wv + "' is not MAJOR.MINOR", entry);
    else if (parts[0] != "1")
      s.add("WC104", "Wheel-Version " + *wv + ": installers refuse a major version other than 1", entry);
    else if (parts[1] != "0")
      s.add("WC104", "Wheel-Version " + *wv + " is newer than 1.0; installers warn", entry, std::nullopt,
            Severity::warning);
  }
  auto purelib = h.get("Root-Is-Purelib");
  if (!purelib)
    s.add("WC104", "WHEEL has no Root-Is-Purelib", entry);
  else if (to_lower(*purelib) != "true" && to_lower(*purelib) != "false")
    s.add("WC104", "Root-Is-Purelib is '" + *purelib + "', expected true or false", entry);
  auto tags = h.get_all("Tag");
  if (tags.empty()) {
    s.add("WC104", "WHEEL has no Tag lines", entry);
  } else if (f.filename.valid) {
    // Expand compressed Tag lines (maturin writes them); the spec wants one expanded tag per line.
    std::set<std::string> in_wheel, in_name;
    std::vector<std::string> compressed;
    for (const auto& t : tags) {
      auto parts = split(t, '-');
      if (parts.size() != 3) {
        in_wheel.insert(t);
        continue;
      }
      if (t.find('.') != std::string::npos) compressed.push_back(t);
      for (auto py : split(parts[0], '.'))
        for (auto abi : split(parts[1], '.'))
          for (auto plat : split(parts[2], '.'))
            in_wheel.insert(std::string(py) + "-" + std::string(abi) + "-" + std::string(plat));
    }
    if (!compressed.empty())
      s.add("WC103",
            "WHEEL lists compressed tag sets (" + join(compressed, ", ") +
                "); the spec wants one expanded tag per Tag line",
            entry, std::nullopt, Severity::warning);
    for (const auto& t : f.filename.tags) in_name.insert(t.str());
    std::vector<std::string> missing, extra;
    for (const auto& t : in_name)
      if (!in_wheel.count(t)) missing.push_back(t);
    for (const auto& t : in_wheel)
      if (!in_name.count(t)) extra.push_back(t);
    if (!missing.empty()) s.add("WC103", "WHEEL lacks tags the file name expands to: " + join(missing, ", "), entry);
    if (!extra.empty()) s.add("WC103", "WHEEL lists tags the file name does not have: " + join(extra, ", "), entry);
  }
  if (f.filename.valid && f.filename.build) {
    auto b = h.get("Build");
    if (b && *b != f.filename.build->number + f.filename.build->suffix &&
        to_lower(*b) != to_lower(f.filename.build->number + f.filename.build->suffix))
      s.add("WC104", "WHEEL Build '" + *b + "' differs from the file name's build tag", entry);
  }
}

const std::set<std::string>& metadata_versions() {
  static const std::set<std::string> v = {"1.0", "1.1", "1.2", "2.1", "2.2", "2.3", "2.4", "2.5"};  // 2.6: warned
  return v;
}

// Fields the spec allows at most once (core metadata specification, "Multiple use" marks the rest).
const std::vector<std::string>& single_use_fields() {
  static const std::vector<std::string> v = {"Metadata-Version", "Name",
                                             "Version",          "Summary",
                                             "Description",      "Description-Content-Type",
                                             "Home-page",        "Download-URL",
                                             "Author",           "Author-email",
                                             "Maintainer",       "Maintainer-email",
                                             "License",          "License-Expression",
                                             "Requires-Python"};
  return v;
}

// Core metadata spec: tools warn on a newer minor version and fail only on a newer major one.
void metadata_version(const std::string& mv, const std::string& entry, FindingSink& s) {
  if (metadata_versions().count(mv)) return;
  const std::string newest = *metadata_versions().rbegin();
  auto parts = split(mv, '.');
  int major = parts.size() == 2 ? parse_small(parts[0], 99).value_or(-1) : -1;
  int minor = parts.size() == 2 ? parse_small(parts[1], 9999).value_or(-1) : -1;
  if (major < 0 || minor < 0) {
    s.add("WC202", "Metadata-Version '" + clip_for_display(mv, 40) + "' is not MAJOR.MINOR", entry);
  } else if (major > 2) {
    s.add("WC202",
          "Metadata-Version " + mv + " has a newer major version than any this tool knows (" + newest +
              "); installers must refuse it",
          entry);
  } else if (major == 2 && minor == 0) {
    s.add("WC202", "Metadata-Version 2.0 was never specified (PEP 426 was withdrawn); installers read it as 2.x", entry,
          std::nullopt, Severity::warning);
  } else if (major == 2 && minor == 6) {
    s.add("WC202",
          "Metadata-Version 2.6 (PEP 808) is valid, but PyPI does not accept it yet: the upload would be rejected "
          "(2.5 is the newest it takes)",
          entry, std::nullopt, Severity::warning);
  } else if (major == 2 && minor > 6) {
    s.add("WC202",
          "Metadata-Version " + mv + " is newer than " + newest +
              ", the newest this tool knows; installers warn and read it",
          entry, std::nullopt, Severity::warning);
  } else {
    s.add("WC202",
          "Metadata-Version '" + clip_for_display(mv, 40) + "' is not a version of the core metadata specification",
          entry);
  }
}

void metadata_file(const WheelFacts& f, FindingSink& s) {
  if (!f.metadata) return;
  const HeaderFile& m = *f.metadata;
  const std::string entry = f.dist_info + "/METADATA";
  for (const auto& p : m.problems) s.add("WC202", "METADATA: " + p, entry);
  for (const auto& [k, v] : m.fields)
    if (std::any_of(v.begin(), v.end(), [](char c) {
          return (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') || c == 0x7f;
        })) {
      s.add("WC202", "field '" + clip_for_display(k, 60) + "' contains a control character", entry);
      break;
    }
  auto mv = m.get("Metadata-Version");
  if (!mv)
    s.add("WC202", "METADATA has no Metadata-Version", entry);
  else
    metadata_version(*mv, entry, s);
  for (const auto& field : single_use_fields())
    if (m.count(field) > 1)
      s.add("WC202", "field '" + field + "' appears " + std::to_string(m.count(field)) + " times; it is single-use",
            entry);
  auto name = m.get("Name");
  auto version = m.get("Version");
  if (!name)
    s.add("WC202", "METADATA has no Name", entry);
  else if (!is_valid_project_name(*name))
    s.add("WC202", "Name '" + clip_for_display(*name, 100) + "' is not a valid project name", entry);
  if (!version)
    s.add("WC202", "METADATA has no Version", entry);
  else if (!parse_version(*version))
    s.add("WC202", "Version '" + clip_for_display(*version, 100) + "' is not a PEP 440 version", entry);
  if (auto summary = m.get("Summary"); summary && summary->find('\n') != std::string::npos)
    s.add("WC202", "Summary spans several lines; it must be one line", entry);
  for (const auto& d : m.get_all("Dynamic"))
    if (iequals(d, "Name") || iequals(d, "Version") || iequals(d, "Metadata-Version"))
      s.add("WC202", "Dynamic may not name '" + d + "'", entry);
  if (auto rp = m.get("Requires-Python")) {
    std::string err;
    if (!SpecifierSet::parse(*rp, &err)) s.add("WC202", "Requires-Python: " + err, entry);
  }
  if (!f.filename.valid) return;
  if (name && canonicalize_name(*name) != f.filename.canonical_name)
    s.add("WC201",
          "METADATA Name '" + clip_for_display(*name, 100) + "' differs from the file name's '" + f.filename.name + "'",
          entry);
  if (version && !same_version(*version, f.filename.version_text))
    s.add("WC201",
          "METADATA Version '" + clip_for_display(*version, 100) + "' differs from the file name's '" +
              f.filename.version_text + "'",
          entry);
}

// Python versions a python tag stands for, to test against Requires-Python: cp312 -> 3.12.*,
// py3 -> 3.*, py312 -> 3.12.*; with the stable ABI (abi3), cp38 -> 3.8 and every later 3.x, which
// all install it. Empty when the tag names no CPython-compatible version.
std::vector<Version> versions_for_tag(const std::string& tag, bool stable_abi) {
  std::string t = to_lower(tag);
  std::string digits;
  if (t.starts_with("cp") || t.starts_with("py") || t.starts_with("pp")) digits = t.substr(2);
  if (!all_digits(digits) || digits.size() > 4) return {};
  std::vector<Version> out;
  int major = digits[0] - '0';
  auto add = [&](int mi, int micro) {
    Version v;
    v.release = {uint64_t(major), uint64_t(mi), uint64_t(micro)};
    out.push_back(v);
  };
  if (t.starts_with("pp")) return {};  // PyPy tags encode PyPy's version, not Python's
  if (digits.size() == 1) {
    for (int mi = 0; mi <= 30; ++mi)
      for (int micro : {0, 99}) add(mi, micro);
  } else {
    int mi = *parse_small(std::string_view(digits).substr(1));
    if (stable_abi && t.starts_with("cp")) {
      for (int later = mi; later <= mi + 30; ++later)
        for (int micro : {0, 99}) add(later, micro);
    } else {
      for (int micro = 0; micro <= 50; ++micro) add(mi, micro);
    }
  }
  return out;
}

void requires_python(const WheelFacts& f, FindingSink& s) {
  if (!f.metadata || !f.filename.valid) return;
  auto rp = f.metadata->get("Requires-Python");
  if (!rp) return;
  auto spec = SpecifierSet::parse(*rp);
  if (!spec) return;
  // Every tag excluded: no interpreter can install it (error). Some excluded: those tags are dead
  // weight, e.g. py2.py3 with Requires-Python >=3.6 (warning).
  std::vector<std::string> excluded;
  size_t judged = 0;
  const auto& abis = f.filename.abi_tags;
  const bool stable_abi =
      std::any_of(abis.begin(), abis.end(), [](const std::string& a) { return a.rfind("abi3", 0) == 0; });
  for (const auto& py : f.filename.python_tags) {
    auto candidates = versions_for_tag(py, stable_abi);
    if (candidates.empty()) continue;
    ++judged;
    if (std::none_of(candidates.begin(), candidates.end(), [&](const Version& v) { return spec->contains(v); }))
      excluded.push_back(py);
  }
  if (excluded.empty()) return;
  bool all = excluded.size() == judged;
  s.add("WC203",
        "Requires-Python '" + *rp + "' excludes every Python the tag" + (excluded.size() > 1 ? "s " : " ") +
            join(excluded, ", ") + (excluded.size() > 1 ? " are" : " is") + " for" +
            (all ? "" : " (other tags remain installable)"),
        f.dist_info + "/METADATA", std::nullopt, all ? Severity::error : Severity::warning);
}

// Lines of a text file, without their \n or \r\n.
std::vector<std::string_view> text_lines(std::string_view text) {
  std::vector<std::string_view> out = split(text, '\n');
  for (auto& l : out)
    if (l.ends_with('\r')) l.remove_suffix(1);
  return out;
}

// A console_scripts/gui_scripts name PyPI accepts: [\w.-]+ (non-ASCII letters are \w too; their
// UTF-8 bytes are all >= 0x80).
bool script_name_ok(std::string_view n) {
  return !n.empty() && std::all_of(n.begin(), n.end(), [](char c) {
    return is_alnum(c) || c == '_' || c == '.' || c == '-' || static_cast<unsigned char>(c) >= 0x80;
  });
}

// An object reference: importable.module or importable.module:object.attr, optionally [extras].
bool object_reference_ok(std::string_view v) {
  auto bracket = v.find('[');
  if (bracket != std::string_view::npos) {
    if (!v.ends_with(']')) return false;
    v = trim(v.substr(0, bracket));
  }
  auto colon = v.find(':');
  auto dotted = [](std::string_view part) {
    part = trim(part);
    if (part.empty() || part.front() == '.' || part.back() == '.' || part.find("..") != std::string_view::npos)
      return false;
    return std::all_of(part.begin(), part.end(), [](char c) {
      return is_alnum(c) || c == '_' || c == '.' || static_cast<unsigned char>(c) >= 0x80;
    });
  };
  return dotted(v.substr(0, colon)) && (colon == std::string_view::npos || dotted(v.substr(colon + 1)));
}

// WC208: entry_points.txt as the entry points specification (and PyPI's upload check) reads it.
void entry_points(const WheelFacts& f, FindingSink& s) {
  const std::string entry = f.dist_info + "/entry_points.txt";
  auto it = f.captured.find(entry);
  if (it == f.captured.end()) return;
  const std::string& text = it->second;
  if (!is_valid_utf8(text)) {
    s.add("WC208", "entry_points.txt is not UTF-8", entry);
    return;
  }
  std::string section;
  std::set<std::string> sections, keys;
  std::vector<std::string> problems;
  size_t line_no = 0;
  for (std::string_view line : text_lines(text)) {
    ++line_no;
    std::string_view t = trim(line);
    if (t.empty() || t.front() == '#' || t.front() == ';') continue;
    std::string where = "line " + std::to_string(line_no) + ": ";
    if (t.front() == '[') {
      if (t.back() != ']' || t.size() < 3) {
        problems.push_back(where + "malformed section header '" + clip_for_display(t, 60) + "'");
        continue;
      }
      section = std::string(trim(t.substr(1, t.size() - 2)));
      if (!sections.insert(section).second)
        problems.push_back(where + "section [" + clip_for_display(section, 60) + "] appears twice");
      keys.clear();
      continue;
    }
    auto eq = t.find('=');
    if (section.empty()) {
      problems.push_back(where + "entry before any [section]");
      continue;
    }
    if (eq == std::string_view::npos) {
      problems.push_back(where + "'" + clip_for_display(t, 60) + "' is not a 'name = object' line");
      continue;
    }
    std::string name(trim(t.substr(0, eq)));
    std::string_view value = trim(t.substr(eq + 1));
    if (name.empty()) problems.push_back(where + "entry without a name");
    if (!keys.insert(name).second)
      problems.push_back(where + "'" + clip_for_display(name, 60) + "' is defined twice in [" + section + "]");
    if ((section == "console_scripts" || section == "gui_scripts") && !name.empty() && !script_name_ok(name))
      problems.push_back(where + "script name '" + clip_for_display(name, 60) + "' in [" + section +
                         "] is outside [\\w.-]+ (PyPI rejects it; installers would write that file name)");
    else if ((section == "console_scripts" || section == "gui_scripts") && (name == "." || name == ".."))
      problems.push_back(where + "script name '" + name + "' in [" + section +
                         "] names the scripts directory or its parent: installers write the script there (over a "
                         "directory, outside the environment's bin/)");
    if (!object_reference_ok(value))
      problems.push_back(where + "'" + clip_for_display(value, 60) + "' is not an object reference (module:attr)");
  }
  for (size_t i = 0; i < problems.size() && i < 5; ++i) s.add("WC208", problems[i], entry);
  if (problems.size() > 5) s.add("WC208", std::to_string(problems.size() - 5) + " more problems like these", entry);
}

// WC209: .pth lines that execute code at every interpreter start (PEP 829 ends that). Lines as
// site.py splits them: str.splitlines() since Python 3.13 (a lone '\r', '\f' or U+2028 starts a
// line), after a UTF-8 byte order mark.
void pth_files(const WheelFacts& f, FindingSink& s) {
  for (const auto& [name, text] : f.captured) {
    if (!name.ends_with(".pth")) continue;
    size_t line_no = 0, first = 0, count = 0;
    std::string_view body = text;
    consume(body, "\xef\xbb\xbf");
    for (std::string_view line : python_splitlines(body)) {
      ++line_no;
      if (line.starts_with("import ") || line.starts_with("import\t")) {
        if (!count++) first = line_no;
      }
    }
    if (count)
      s.add("WC209",
            std::to_string(count) + " 'import' line" + (count == 1 ? "" : "s") + " (first at line " +
                std::to_string(first) +
                ") run code at every interpreter start; PEP 829 stops executing them (from about Python 3.18): "
                "use an entry point or a startup hook",
            name);
  }
}

// WC210: signature files PEP 815 deprecates (installers ignore them; PyPI will refuse them).
void record_signatures(const WheelFacts& f, FindingSink& s) {
  if (f.dist_info.empty()) return;
  for (const char* sig : {"RECORD.jws", "RECORD.p7s"}) {
    std::string entry = f.dist_info + "/" + sig;
    if (f.find_entry(entry))
      s.add("WC210",
            std::string(sig) +
                " is a wheel signature PEP 815 deprecates: no installer verifies it; sign the release with "
                "index attestations (PEP 740) instead",
            entry);
  }
}

}  // namespace

void distinfo_rules(const WheelFacts& f, FindingSink& s) {
  if (!f.from_index_metadata) layout(f, s);  // an index's metadata has no archive to lay out
  for (const auto& e : f.dist_info_read_errors) s.add("WC202", e);
  wheel_file(f, s);
  metadata_file(f, s);
  requires_python(f, s);
  entry_points(f, s);
  pth_files(f, s);
  record_signatures(f, s);
}

}  // namespace wc
