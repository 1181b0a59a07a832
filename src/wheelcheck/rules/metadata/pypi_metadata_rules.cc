// WC205: core metadata PyPI's upload rejects on top of the specification (warehouse
// forklift/metadata.py and packaging.metadata's validation): license fields and expression,
// License-File, trove classifiers, Summary length, e-mail and URL fields, direct-URL requirements,
// Dynamic, and PEP 794's Import-Name / Import-Namespace. Off by default; an error under `pypi`.
#include <algorithm>
#include <set>

#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/license_expression.h"
#include "wheel/requirement.h"

namespace wc {
namespace {

constexpr size_t kMaxSummaryChars = 512;  // warehouse's _LENGTH_LIMITS
constexpr size_t kMaxUrlLabelChars = 32;

size_t code_points(std::string_view s) {
  return std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; });
}

bool metadata_at_least(const HeaderFile& m, int major, int minor) {
  auto mv = m.get("Metadata-Version");
  if (!mv) return false;
  auto parts = split(*mv, '.');
  if (parts.size() != 2) return false;
  auto ma = parse_small(parts[0], 99), mi = parse_small(parts[1], 9999);
  return ma && mi && (*ma > major || (*ma == major && *mi >= minor));
}

// --- licenses --------------------------------------------------------------------------------------

void license_fields(const WheelFacts& f, const HeaderFile& m, const std::string& entry, FindingSink& s) {
  const MetadataPolicy& t = s.policy().metadata;
  auto expr = m.get("License-Expression");
  if (expr && m.get("License"))
    s.add("WC205",
          "License and License-Expression are both given: PEP 639 replaces License with License-Expression, and "
          "PyPI rejects the pair",
          entry);
  if (expr && !t.spdx_licenses.empty()) {
    auto c = canonicalize_license_expression(*expr, t.spdx_licenses, t.spdx_exceptions);
    if (!c.canonical)
      s.add("WC205",
            "License-Expression '" + clip_for_display(*expr, 200) + "' is not a valid SPDX expression (SPDX list " +
                t.spdx_list_version + "): " + clip_for_display(c.error, 200),
            entry);
  }
  const bool v24 = metadata_at_least(m, 2, 4);
  for (const auto& path : m.get_all("License-File")) {
    std::string why;
    if (path.empty())
      why = "is empty";
    else if (path.find("..") != std::string::npos)
      why = "contains '..' (parent directory indicators are not allowed)";
    else if (path.find('*') != std::string::npos)
      why = "contains '*' (paths must be resolved, not globs)";
    else if (path.front() == '/' || path.front() == '\\' || (path.size() > 1 && path[1] == ':'))
      why = "is not relative";
    else if (path.find('\\') != std::string::npos)
      why = "uses '\\' (paths must use '/')";
    if (!why.empty()) {
      s.add("WC205", "License-File '" + clip_for_display(path, 200) + "' " + why, entry);
      continue;
    }
    // PEP 639 (Metadata-Version 2.4): the files are under .dist-info/licenses/. Older backends
    // (setuptools with 2.1/2.2) put them at the top of .dist-info; PyPI does not check those.
    if (v24 && !f.from_index_metadata && !f.dist_info.empty() && !f.find_entry(f.dist_info + "/licenses/" + path))
      s.add("WC205",
            "License-File '" + clip_for_display(path, 200) + "' is not in the wheel at " + f.dist_info + "/licenses/" +
                clip_for_display(path, 200) + " (PEP 639; PyPI rejects the upload)",
            entry);
  }
}

// --- classifiers, Summary, Dynamic -----------------------------------------------------------------

void classifiers(const HeaderFile& m, const std::string& entry, FindingSink& s) {
  const MetadataPolicy& t = s.policy().metadata;
  if (t.classifiers.empty()) return;
  std::set<std::string> seen;
  for (const auto& c : m.get_all("Classifier")) {
    if (!seen.insert(c).second) continue;
    if (auto d = t.deprecated_classifiers.find(c); d != t.deprecated_classifiers.end())
      s.add("WC205",
            "classifier '" + clip_for_display(c, 200) + "' is deprecated" +
                (d->second.empty() ? std::string() : "; use " + join(d->second, " or ")) + " (" + t.classifiers_source +
                ")",
            entry);
    else if (!t.classifiers.count(c))
      s.add("WC205",
            "classifier '" + clip_for_display(c, 200) + "' is not a trove classifier (" + t.classifiers_source +
                "); PyPI rejects unknown ones, 'Private ::' ones included",
            entry);
  }
}

const std::set<std::string, std::less<>>& metadata_field_names() {
  static const std::set<std::string, std::less<>> v = {"author",
                                                       "author-email",
                                                       "classifier",
                                                       "description",
                                                       "description-content-type",
                                                       "download-url",
                                                       "dynamic",
                                                       "home-page",
                                                       "import-name",
                                                       "import-namespace",
                                                       "keywords",
                                                       "license",
                                                       "license-expression",
                                                       "license-file",
                                                       "maintainer",
                                                       "maintainer-email",
                                                       "metadata-version",
                                                       "name",
                                                       "obsoletes",
                                                       "obsoletes-dist",
                                                       "platform",
                                                       "project-url",
                                                       "provides",
                                                       "provides-dist",
                                                       "provides-extra",
                                                       "requires",
                                                       "requires-dist",
                                                       "requires-external",
                                                       "requires-python",
                                                       "summary",
                                                       "supported-platform",
                                                       "version"};
  return v;
}

void summary_and_dynamic(const HeaderFile& m, const std::string& entry, FindingSink& s) {
  if (auto summary = m.get("Summary"); summary && code_points(*summary) > kMaxSummaryChars)
    s.add("WC205",
          "Summary has " + std::to_string(code_points(*summary)) + " characters; PyPI takes " +
              std::to_string(kMaxSummaryChars) + " at most",
          entry);
  for (const auto& d : m.get_all("Dynamic")) {
    std::string lower = to_lower(trim(d));
    if (lower == "name" || lower == "version" || lower == "metadata-version") continue;  // WC202
    if (!metadata_field_names().count(lower))
      s.add("WC205", "Dynamic names '" + clip_for_display(d, 80) + "', which is not a core metadata field", entry);
  }
}

// --- e-mail and URL fields -------------------------------------------------------------------------

bool is_atext(char c) {
  return is_alnum(c) || std::string_view("!#$%&'*+/=?^_`{|}~-").find(c) != std::string_view::npos ||
         static_cast<unsigned char>(c) >= 0x80;
}

// An address as email-validator judges it for PyPI (no deliverability check): a dot-atom local
// part of 64 bytes at most, a domain of two or more labels of letters, digits and '-' (not at a
// label's ends), a top-level label not all digits, and not a special-use domain.
std::string address_problem(std::string_view a) {
  auto at = a.rfind('@');
  if (at == std::string_view::npos) return "has no '@'";
  std::string_view local = a.substr(0, at), domain = a.substr(at + 1);
  if (local.empty()) return "has nothing before the '@'";
  if (local.size() > 64) return "has a local part over 64 bytes";
  if (local.front() == '.' || local.back() == '.' || local.find("..") != std::string_view::npos)
    return "has a misplaced '.' before the '@'";
  if (!std::all_of(local.begin(), local.end(), [](char c) { return is_atext(c) || c == '.'; }))
    return "has a character an address may not have before the '@'";
  if (domain.empty()) return "has nothing after the '@'";
  if (domain.size() > 253) return "has a domain over 253 bytes";
  auto labels = split(domain, '.');
  if (labels.size() < 2) return "has a domain without a '.'";
  for (auto l : labels) {
    if (l.empty() || l.size() > 63) return "has an empty or over-long domain label";
    if (l.front() == '-' || l.back() == '-') return "has a domain label that starts or ends with '-'";
    if (!std::all_of(l.begin(), l.end(),
                     [](char c) { return is_alnum(c) || c == '-' || static_cast<unsigned char>(c) >= 0x80; }))
      return "has a character a domain may not have";
  }
  if (all_digits(labels.back())) return "has a numeric top-level domain";
  std::string tld = to_lower(labels.back());
  for (const char* special : {"arpa", "invalid", "local", "localhost", "onion", "test"})
    if (tld == special) return "is at the special-use domain '." + tld + "'";
  return "";
}

// The addresses of an RFC 822 list ("A <a@x.org>, b@y.org"): commas inside quotes or angle
// brackets do not separate.
std::vector<std::string> addresses(std::string_view field) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, angle = false;
  auto flush = [&] {
    std::string_view piece = trim(cur);
    auto lt = piece.rfind('<'), gt = piece.rfind('>');
    if (lt != std::string_view::npos && gt != std::string_view::npos && gt > lt)
      piece = trim(piece.substr(lt + 1, gt - lt - 1));
    if (!piece.empty()) out.emplace_back(piece);
    cur.clear();
  };
  for (char c : field) {
    if (c == '"') quoted = !quoted;
    if (!quoted && c == '<') angle = true;
    if (!quoted && c == '>') angle = false;
    if (c == ',' && !quoted && !angle)
      flush();
    else
      cur += c;
  }
  flush();
  return out;
}

void email_fields(const HeaderFile& m, const std::string& entry, FindingSink& s) {
  for (const char* field : {"Author-email", "Maintainer-email"}) {
    auto v = m.get(field);
    if (!v) continue;
    for (const auto& a : addresses(*v))
      if (auto why = address_problem(a); !why.empty())
        s.add("WC205", std::string(field) + ": '" + clip_for_display(a, 120) + "' is not an e-mail address: it " + why,
              entry);
  }
}

// An http(s) URL with a host, and none of the characters RFC 3986 leaves out of URLs.
std::string url_problem(std::string_view u) {
  auto colon = u.find(':');
  std::string scheme = to_lower(u.substr(0, colon == std::string_view::npos ? 0 : colon));
  if (scheme != "http" && scheme != "https") return "is not an http or https URL";
  std::string_view rest = u.substr(colon + 1);
  if (!consume(rest, "//")) return "has no '//' and host after the scheme";
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (!authority.empty() && authority.front() != '[')
    if (auto port = authority.rfind(':'); port != std::string_view::npos) authority = authority.substr(0, port);
  if (authority.empty()) return "has no host";
  for (char c : u)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f ||
        std::string_view("<>\"{}|\\^`").find(c) != std::string_view::npos)
      return "contains a character URLs may not have ('" + escape_for_display(std::string(1, c)) + "')";
  return "";
}

void url_fields(const HeaderFile& m, const std::string& entry, FindingSink& s) {
  for (const char* field : {"Home-page", "Download-URL"})
    if (auto v = m.get(field))
      if (auto why = url_problem(*v); !why.empty())
        s.add("WC205", std::string(field) + " '" + clip_for_display(*v, 200) + "' " + why, entry);
  std::set<std::string> labels;
  for (const auto& pu : m.get_all("Project-URL")) {
    auto comma = pu.find(',');
    std::string label(trim(std::string_view(pu).substr(0, comma)));
    std::string url = comma == std::string::npos ? "" : std::string(trim(std::string_view(pu).substr(comma + 1)));
    std::string what = "Project-URL '" + clip_for_display(pu, 200) + "' ";
    if (label.empty())
      s.add("WC205", what + "has no label", entry);
    else if (code_points(label) > kMaxUrlLabelChars)
      s.add("WC205",
            what + "has a label of " + std::to_string(code_points(label)) + " characters; PyPI takes " +
                std::to_string(kMaxUrlLabelChars) + " at most",
            entry);
    else if (url.empty())
      s.add("WC205", what + "has no URL", entry);
    else if (auto why = url_problem(url); !why.empty())
      s.add("WC205", what + why, entry);
    else if (!labels.insert(label).second)
      s.add("WC205", what + "repeats the label '" + clip_for_display(label, 40) + "' (packaging cannot map it)", entry);
  }
}

void direct_urls(const HeaderFile& m, const std::string& entry, FindingSink& s) {
  for (const char* field : {"Requires-Dist", "Provides-Dist", "Obsoletes-Dist"})
    for (const auto& line : m.get_all(field))
      if (auto r = parse_requirement(line); r && !r->url.empty())
        s.add("WC205",
              std::string(field) + " '" + clip_for_display(line, 200) +
                  "' is a direct URL reference: PyPI rejects direct dependencies",
              entry);
}

// --- PEP 794 Import-Name / Import-Namespace --------------------------------------------------------

// The dotted name of an Import-Name value ("a.b ; private" -> "a.b"), or the reason it is invalid.
std::string import_name_problem(std::string_view v, std::string& name) {
  auto semi = v.find(';');
  name = std::string(v.substr(0, semi));
  while (!name.empty() && is_space(name.back())) name.pop_back();
  for (auto part : split(name, '.')) {
    if (!is_identifier(part)) return "'" + std::string(part) + "' is not a valid identifier";
    if (is_python_keyword(part)) return "'" + std::string(part) + "' is a keyword";
  }
  if (semi != std::string_view::npos) {
    std::string_view opt = v.substr(semi + 1);
    while (!opt.empty() && is_space(opt.front())) opt.remove_prefix(1);
    if (opt != "private") return "the only option after ';' is 'private'";
  }
  return "";
}

// Every dotted name the installed tree makes importable: packages (directories, namespace ones too)
// and modules (.py, sourceless .pyc, extension modules), from the root and .data/purelib|platlib.
std::set<std::string> importable_names(const WheelFacts& f) {
  std::set<std::string> out;
  for (const auto& e : f.entries) {
    std::string p = install_path(e.name);
    if (p.empty() || p.find(".dist-info/") != std::string::npos) continue;
    auto parts = split(p, '/');
    std::string dotted;
    for (size_t i = 0; i < parts.size(); ++i) {
      std::string_view part = parts[i];
      bool last = i + 1 == parts.size() && e.kind != EntryKind::directory;
      if (last) {
        auto dot = part.find('.');
        std::string_view stem = part.substr(0, dot), suffix = dot == std::string_view::npos ? "" : part.substr(dot);
        auto ext = extension_suffix(part);
        if (!(suffix == ".py" || suffix == ".pyc" || (ext && ext->python_extension)) || !is_identifier(stem)) break;
        part = stem;
      } else if (part.empty()) {
        break;
      } else if (!is_identifier(part)) {
        break;
      }
      dotted += (dotted.empty() ? "" : ".") + std::string(part);
      out.insert(dotted);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> declared_import_names(const std::vector<std::string>& values, std::vector<std::string>* bad) {
  std::vector<std::string> out;
  if (values.size() == 1 && trim(values[0]).empty()) return out;  // "Import-Name:" alone: nothing
  for (const auto& v : values) {
    std::string name;
    auto why = import_name_problem(v, name);
    if (why.empty())
      out.push_back(name);
    else if (bad)
      bad->push_back("'" + clip_for_display(v, 120) + "': " + why);
  }
  return out;
}

namespace {

void import_names(const WheelFacts& f, const HeaderFile& m, const InstallSet& set, const std::string& entry,
                  FindingSink& s) {
  std::vector<std::string> bad;
  auto names = declared_import_names(m.get_all("Import-Name"), &bad);
  auto spaces = declared_import_names(m.get_all("Import-Namespace"), &bad);
  for (const auto& b : bad) s.add("WC205", "Import-Name/Import-Namespace " + b + " (PEP 794)", entry);
  for (const auto& n : names)
    if (std::find(spaces.begin(), spaces.end(), n) != spaces.end())
      s.add("WC205", "'" + n + "' is both an Import-Name and an Import-Namespace (PEP 794 forbids it)", entry);
  if (!f.from_index_metadata && (!names.empty() || !spaces.empty())) {
    auto have = importable_names(f);
    for (const auto* list : {&names, &spaces})
      for (const auto& n : *list)
        if (!have.count(n))
          s.add("WC205",
                std::string(list == &names ? "Import-Name" : "Import-Namespace") + " '" + n +
                    "' is not importable from the wheel: no package directory or module at that path",
                entry);
  }
  // Two projects of one install set that both claim an import name overwrite each other's files:
  // reported on the wheel whose install set takes the other project in (the one that declares or
  // reaches it), naming the other.
  for (const WheelFacts* other : set.wheels) {
    if (other == &f || !other->metadata || other->filename.canonical_name == f.filename.canonical_name) continue;
    auto theirs = declared_import_names(other->metadata->get_all("Import-Name"));
    for (const auto& n : names)
      if (std::find(theirs.begin(), theirs.end(), n) != theirs.end())
        s.add("WC205",
              "Import-Name '" + n + "' is also claimed by " + other->filename.name +
                  " in the same install set: one project's files overwrite the other's",
              entry);
  }
}

}  // namespace

void pypi_metadata_rules(const WheelFacts& f, const InstallSet& set, FindingSink& s) {
  if (!f.metadata || s.policy().severity_of("WC205", Severity::off) == Severity::off) return;
  const HeaderFile& m = *f.metadata;
  const std::string entry = f.dist_info + "/METADATA";
  // METADATA is the uploader's text: 100,000 made-up classifiers would be 100,000 findings. The
  // first kListed are reported, the rest counted in one more.
  constexpr size_t kListed = 25;
  FindingSink all(s.policy());
  license_fields(f, m, entry, all);
  classifiers(m, entry, all);
  summary_and_dynamic(m, entry, all);
  email_fields(m, entry, all);
  url_fields(m, entry, all);
  direct_urls(m, entry, all);
  import_names(f, m, set, entry, all);
  auto found = all.take();
  for (size_t i = 0; i < found.size() && i < kListed; ++i)
    s.add(found[i].rule, std::move(found[i].message), std::move(found[i].entry), found[i].offset, found[i].severity);
  if (found.size() > kListed)
    s.add("WC205", std::to_string(found.size() - kListed) + " more WC205 findings of this METADATA not listed", entry,
          std::nullopt, found[kListed].severity);
  for (auto& w : all.take_waived())
    s.add_waived(w.finding.rule, std::move(w.finding.message), std::move(w.finding.entry), std::move(w.reason));
}

}  // namespace wc
