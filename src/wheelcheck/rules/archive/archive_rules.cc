// WC401-WC405 archive safety, WC701 wheel size, WC706 forbidden content; the WC102 findings of
// where installers place entries (.data schemes, metadata of other projects).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "util/view_map.h"
#include "wheel/entry_names.h"
#include "wheel/py_text.h"

namespace wc {

namespace {

// Calls f(component, last) for each '/'-separated component of `path`, in place, until f returns true.
template <typename F>
bool any_component(std::string_view path, F&& f) {
  for (;;) {
    const size_t cut = path.find('/');
    const bool last = cut == std::string_view::npos;
    if (f(path.substr(0, cut), last)) return true;
    if (last) return false;
    path.remove_prefix(cut + 1);
  }
}

// What is wrong with one '/'-separated component of a name: "" when nothing.
const char* component_problem(std::string_view part, bool last) {
  if (part.size() > 255) return "path component over 255 bytes";
  if (part.size() > 2 || part.empty()) return part.empty() && !last ? "empty path component" : "";
  if (part == "..") return "'..' component escapes the install directory";
  if (part == ".") return "'.' component";
  return "";
}

}  // namespace

std::string unsafe_path_reason(const std::string& name, uint64_t max_len) {
  if (name.empty()) return "empty name";
  // Most names are printable ASCII without a backslash: none of the byte checks below can find
  // anything in them, so one pass decides (several rules ask this of each of 100,000 entries).
  const bool plain = std::all_of(name.begin(), name.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c >= 0x20 && c < 0x7f && c != '\\';
  });
  if (!plain) {
    if (name.find('\0') != std::string::npos) return "name contains NUL";
    if (!is_valid_utf8(name)) return "name is not valid UTF-8";
    // pip reads RECORD with str.splitlines(): a name holding any of its line breaks adds a row
    // (uninstall then deletes the path that row names).
    if (size_t at = find_python_line_break(name); at != std::string::npos)
      return "name contains " + python_line_break_name(name, at) +
             ", a line break for Python's str.splitlines(): pip reads RECORD with it, so the name injects a RECORD "
             "row";
    for (unsigned char c : name)
      if (c < 0x20 || c == 0x7f) return "name contains a control character";
    if (name.find('\\') != std::string::npos) return "name contains a backslash";
  }
  if (name[0] == '/') return "absolute path";
  if (name.size() >= 2 && is_alpha(name[0]) && name[1] == ':') return "drive letter";
  if (name.size() > max_len)
    return "path is " + std::to_string(name.size()) + " bytes, over the limit of " + std::to_string(max_len);
  // Component by component, in place (every rule that places entries asks this of every entry).
  const char* why = "";
  any_component(name, [&](std::string_view part, bool last) { return *(why = component_problem(part, last)) != 0; });
  return why;
}

namespace {

void limits(const WheelFacts& f, FindingSink& s) {
  const Limits& lim = s.policy().limits;
  if (f.entries.size() > lim.max_entries)
    s.add("WC403", std::to_string(f.entries.size()) + " entries, over the limit of " + std::to_string(lim.max_entries));
  // The ratio is the whole wheel's, as PyPI's upload check (and the README) judge it: one highly
  // compressible entry in an ordinary wheel is no bomb, and the total limit bounds what it costs.
  ArchiveTotals totals;
  for (const auto& e : f.entries) totals.add(e.size, e.compressed_size);
  if (totals.declared > lim.max_total_uncompressed_bytes)
    s.add("WC403", "entries declare " + std::to_string(totals.declared) + " uncompressed bytes, over the limit of " +
                       std::to_string(lim.max_total_uncompressed_bytes));
  if (lim.wheel_over_ratio(totals.declared, f.file_size)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", f.file_size ? double(totals.declared) / double(f.file_size) : 0.0);
    s.add("WC403", "the wheel's " + std::to_string(f.file_size) + " bytes inflate to " +
                       std::to_string(totals.declared) + " (" +
                       (f.file_size ? std::string(buf) + ":1" : "from nothing") + "), over the limit of " +
                       std::to_string(int(lim.max_compression_ratio)) + ":1 for wheels that inflate to over " +
                       std::to_string(lim.ratio_min_entry_bytes >> 20) +
                       " MiB (PyPI's upload check: the whole file); entries over that ratio were not inflated");
  }
  if (f.overlapping_entries)
    s.add("WC403",
          std::to_string(f.overlapping_entries) +
              " entries share compressed data (the overlapping zip-bomb construction): together they declare " +
              std::to_string(f.overlapping_bytes) + " bytes from a " + std::to_string(f.file_size) +
              "-byte file; none of them was inflated");
  for (const auto& ev : f.limit_events) s.add("WC403", ev.message, ev.entry);
}

void readability(const WheelFacts& f, FindingSink& s) {
  for (const auto& p : f.unreadable) s.add("WC404", p.message, p.entry, p.offset);
  for (const auto& p : f.inconsistent) s.add("WC404", p.message, p.entry, p.offset);
  for (const auto& p : f.methods) s.add("WC405", p.message, p.entry, p.offset);
  for (const auto& p : f.upload_refusals) s.add("WC406", p.message, p.entry, p.offset);
  for (const auto& e : f.entries) {
    if (!e.read_error.empty())
      s.add("WC404", e.read_error, e.name);
    else if (e.kind == EntryKind::file && e.skipped.empty() && f.readable() && e.bytes_read != e.size)
      s.add("WC404",
            "entry inflated to " + std::to_string(e.bytes_read) + " bytes, the central directory says " +
                std::to_string(e.size),
            e.name);
  }
}

// Where the wheel installs: on Windows (win_* tags, or any platform), on macOS (macosx_*, or any).
// A wheel whose name does not parse could install anywhere.
struct Reach {
  bool windows = true, macos = true;
};

Reach reach_of(const WheelFacts& f) {
  if (!f.filename.valid || f.filename.platform_tags.empty()) return {};
  Reach r{false, false};
  for (const auto& tag : f.filename.platform_tags) {
    std::string t = to_lower(tag);
    if (t == "any") return {};
    r.windows |= t.starts_with("win");
    r.macos |= t.starts_with("macosx");
  }
  return r;
}

bool is_windows_device(std::string_view component) {
  std::string_view view = component.substr(0, component.find('.'));
  while (!view.empty() && view.back() == ' ') view.remove_suffix(1);  // "aux .py" is AUX too
  // Every component of every entry is asked: compared in place, no string made.
  if (view.size() == 3)
    return iequals(view, "CON") || iequals(view, "PRN") || iequals(view, "AUX") || iequals(view, "NUL");
  if (view.size() != 4) return false;
  const std::string_view stem = view.substr(0, 3);
  return (iequals(stem, "COM") || iequals(stem, "LPT")) && is_digit(view[3]) && view[3] != '0';
}

// What Windows does to one path component that POSIX keeps: empty when nothing (every component
// of every entry is asked: the usual answer makes no string from a literal).
std::string windows_collapse(std::string_view c) {
  if (c.empty()) return {};
  if (c.back() == '.' || c.back() == ' ')
    return "component '" + clip_for_display(c, 60) +
           "' ends in a dot or a space, which Windows strips: it names another file there";
  if (c.find(':') != std::string_view::npos)
    return "component '" + clip_for_display(c, 60) +
           "' holds ':', which NTFS reads as an alternate data stream of the name before it";
  if (is_windows_device(c))
    return "component '" + clip_for_display(c, 60) +
           "' is a Windows device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, any extension): opening it opens the "
           "device";
  return {};
}

// " (850 MB, decimal, as pip counts)" or " (100 MiB)": the unit a limit was written in.
std::string size_in_units(uint64_t bytes) {
  if (bytes && bytes % 1000000 == 0) return " (" + std::to_string(bytes / 1000000) + " MB, decimal, as pip counts)";
  if (bytes && bytes % (1u << 20) == 0) return " (" + std::to_string(bytes >> 20) + " MiB)";
  return "";
}

// An install key that is a file and a directory too: a directory entry of that key, or any file
// below it. `dir` is the first entry (archive order) making it a directory. In key order.
struct DirectoryClash {
  std::string_view key;
  size_t file, dir;
};

// The same by one sort: with '/' before every other byte, all keys below "a" come right after
// "a", and one pass with a stack of the open file keys charges each key to one subtree. Its cost
// is the sort's whatever the keys' depth.
std::vector<DirectoryClash> clashes_by_sort(const ViewMap<size_t>& files,
                                            const std::vector<std::pair<std::string_view, size_t>>& dirs) {
  struct Key {
    std::string_view key;
    size_t entry;
    bool dir;
  };
  std::vector<Key> keys;
  keys.reserve(files.size() + dirs.size());
  files.for_each([&](std::string_view k, size_t i) { keys.push_back({k, i, false}); });
  for (const auto& [k, i] : dirs) keys.push_back({k, i, true});
  auto rank = [](char c) { return c == '/' ? 0 : int(static_cast<unsigned char>(c)) + 1; };
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    const size_t n = std::min(a.key.size(), b.key.size());
    size_t i = 0;
    // Keys share long prefixes ("pkg/sub/m0001.py"): skip the common part eight bytes at a time.
    for (uint64_t x, y; i + 8 <= n; i += 8) {
      std::memcpy(&x, a.key.data() + i, 8), std::memcpy(&y, b.key.data() + i, 8);
      if (x != y) break;
    }
    for (; i < n; ++i)
      if (a.key[i] != b.key[i]) return rank(a.key[i]) < rank(b.key[i]);
    if (a.key.size() != b.key.size()) return a.key.size() < b.key.size();
    return std::tie(a.dir, a.entry) < std::tie(b.dir, b.entry);
  });
  auto below = [](const Key& k, const Key& file) {
    return k.key.size() > file.key.size() ? k.key.starts_with(file.key) && k.key[file.key.size()] == '/'
                                          : k.dir && k.key == file.key;
  };
  constexpr size_t none = SIZE_MAX;
  struct Open {
    const Key* file;
    size_t first_below;
  };
  std::vector<Open> open;
  std::vector<DirectoryClash> out;
  auto close = [&] {
    Open c = open.back();
    open.pop_back();
    if (c.first_below == none) return;
    out.push_back({c.file->key, c.file->entry, c.first_below});
    if (!open.empty()) open.back().first_below = std::min(open.back().first_below, c.first_below);
  };
  for (const Key& k : keys) {
    while (!open.empty() && !below(k, *open.back().file)) close();
    if (!open.empty()) open.back().first_below = std::min(open.back().first_below, k.entry);
    if (!k.dir) open.push_back({&k, none});
  }
  while (!open.empty()) close();
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

// Each key's parents (its prefixes up to each '/') are looked up among the file keys, and a
// directory entry's own key too: a lookup per '/', no sort. Hashing a prefix costs its length, so
// a key costs the sum of its prefixes' lengths, quadratic in a deep path: while that sum stays
// within 16 times the keys' bytes (any real tree: 'pkg/sub/m.py' is 1.1 times), this is the
// cheaper; past it (a hostile deep name) the sort answers.
std::vector<DirectoryClash> file_directory_clashes(const ViewMap<size_t>& files,
                                                   const std::vector<std::pair<std::string_view, size_t>>& dirs) {
  auto each_parent = [](std::string_view key, auto&& f) {
    for (size_t p = key.find('/'); p != std::string_view::npos; p = key.find('/', p + 1)) f(key.substr(0, p));
  };
  uint64_t bytes = 0, hashed = 0;
  auto cost = [&](std::string_view key) {
    bytes += key.size();
    each_parent(key, [&](std::string_view parent) { hashed += parent.size(); });
  };
  files.for_each([&](std::string_view key, size_t) { cost(key); });
  for (const auto& [key, i] : dirs) cost(key), hashed += key.size();
  if (hashed > 16 * bytes + 65536) return clashes_by_sort(files, dirs);
  ViewMap<size_t> first_below;  // a file key with something below it -> the first such entry
  auto below = [&](std::string_view file, size_t entry) {
    if (!files.find(file)) return;
    if (auto [at, fresh] = first_below.try_emplace(file, entry); !fresh) *at = std::min(*at, entry);
  };
  files.for_each(
      [&](std::string_view key, size_t i) { each_parent(key, [&](std::string_view parent) { below(parent, i); }); });
  for (const auto& [key, i] : dirs) {
    each_parent(key, [&](std::string_view parent) { below(parent, i); });
    below(key, i);
  }
  std::vector<DirectoryClash> out;
  first_below.for_each([&](std::string_view key, size_t dir) { out.push_back({key, *files.find(key), dir}); });
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

// Where pip and installer put each entry, and what that breaks: entries no installer places
// (WC102), metadata directories of another project (WC102), two entries at one path or a path
// that is both a file and a directory (WC401), and names other platforms' file systems collapse
// (WC401: errors where the wheel installs there, warnings elsewhere). `unsafe[i]`: entry i's name
// is refused (unsafe_path_reason, which archive_rules asks once per entry for both).
void installed_paths(const WheelFacts& f, FindingSink& s, const std::vector<bool>& unsafe) {
  const Reach reach = reach_of(f);
  const std::optional<Severity> on_windows = reach.windows ? std::nullopt : std::optional(Severity::warning);
  const std::optional<Severity> on_case_folding =
      reach.windows || reach.macos ? std::nullopt : std::optional(Severity::warning);
  // Hashed, not ordered (100,000 entries are 100,000 insertions each): findings come in entry order,
  // and file_directory_clashes sorts what it needs. Keys are views: of the entry names (a library
  // path is its own key), or of a string kept in `owned` (`<scheme>/path`, case-folded keys).
  ViewMap<size_t> files(f.entries.size());                                // install key -> the first entry placing it
  std::vector<std::pair<std::string_view, size_t>> dir_keys;              // directory entries: install key, entry
  ViewMap<std::pair<std::string_view, size_t>> folded(f.entries.size());  // case-folded key -> the key, its entry
  std::deque<std::string> owned;                                          // a deque: what it holds never moves
  auto keep = [&](std::string text) -> std::string_view { return owned.emplace_back(std::move(text)); };
  // to_lower(nfc(key)) is the key itself when it is ASCII without capitals (NFC leaves ASCII as it is).
  auto fold = [&](std::string_view key) -> std::string_view {
    for (char c : key)
      if (static_cast<unsigned char>(c) >= 0x80 || (c >= 'A' && c <= 'Z')) return keep(to_lower(nfc(key)));
    return key;
  };
  std::set<std::string, std::less<>> foreign;
  // pypa/installer (0.7.0) takes any name with the string prefix `{name}-{version}.data` (from the
  // file name) for a .data path and splits it until it meets that directory: 'x-1.0.data_y/z' or
  // 'x-1.0.data.py' never does, and the install loops forever (run: it does).
  const std::string data_dir = f.filename.valid ? f.filename.name + "-" + f.filename.version_text + ".data" : "";
  // Most keys are the entry's name, folded to itself: its hash, taken a few entries ahead, serves
  // both tables, and their slots are fetched from memory meanwhile.
  HashesAhead hashes(
      f.entries.size(), [&](size_t i) { return files.hash(f.entries[i].name); },
      [&](uint64_t h) { files.prefetch(h), folded.prefetch(h); });
  for (size_t i = 0; i < f.entries.size(); ++i) {
    const EntryFacts& e = f.entries[i];
    const uint64_t name_hash = hashes.at(i);
    if (!data_dir.empty() && e.name.starts_with(data_dir) && e.name.size() > data_dir.size() &&
        e.name[data_dir.size()] != '/')
      s.add("WC102",
            "the name begins with the .data directory's '" + clip_for_display(data_dir) +
                "' without being inside it: pypa/installer takes it for a .data path and loops forever",
            e.name);
    if (e.kind != EntryKind::file && e.kind != EntryKind::directory) continue;
    // Where a refused entry would land is moot: its WC401 says all (no Windows-collapse finding
    // for the '..' of ../../etc/cron.d/evil).
    if (unsafe[i]) continue;
    const std::string_view name = e.name;
    const auto t = install_target_view(name);  // views of the name: no copies per entry
    if (!t) {
      if (e.kind == EntryKind::file)
        s.add("WC102",
              "a .data entry outside purelib/, platlib/, headers/, scripts/ and data/: pip and installer refuse the "
              "wheel",
              e.name);
      continue;
    }
    const std::string_view path = t->path;
    std::string_view key = t->library() ? path : keep(t->key());  // a library path is its own key
    // The name's hash serves a key that is the name itself (the same bytes, not only the same start).
    auto hash_of = [&](std::string_view k) {
      return k.data() == name.data() && k.size() == name.size() ? name_hash : files.hash(k);
    };
    if (e.kind == EntryKind::directory) {
      while (key.ends_with('/')) key.remove_suffix(1);
      if (!key.empty()) dir_keys.emplace_back(key, i);
    } else if (auto [first, fresh] = files.try_emplace_hashed(key, hash_of(key), i);
               !fresh && f.entries[*first].name != e.name) {
      s.add("WC401",
            "installs to '" + clip_for_display(key) + "' as the entry '" + clip_for_display(f.entries[*first].name) +
                "' does: one overwrites the other",
            e.name);
    }
    const std::string_view folded_key = fold(key);
    if (auto [other, fresh] = folded.try_emplace_hashed(folded_key, hash_of(folded_key), std::pair(key, i));
        !fresh && key != other->first)
      s.add("WC401",
            "installs to '" + clip_for_display(key) +
                "', which a case-insensitive file system (Windows, macOS) takes "
                "for '" +
                clip_for_display(other->first) + "' (the entry '" + clip_for_display(f.entries[other->second].name) +
                "')",
            e.name, std::nullopt, on_case_folding);
    const std::string_view top = path.substr(0, path.find('/'));
    if (t->library() && top != f.dist_info && (top.ends_with(".dist-info") || top.ends_with(".egg-info")) &&
        (name != path || top.ends_with(".egg-info")) && foreign.insert(std::string(top)).second)
      s.add("WC102",
            "installs the metadata directory '" + clip_for_display(top) +
                "' into site-packages beside the wheel's own: pip list and importlib.metadata then report the "
                "project it names",
            e.name);
    any_component(path, [&](std::string_view c, bool) {
      std::string why = windows_collapse(c);
      if (why.empty()) return false;
      s.add("WC401", std::move(why), e.name, std::nullopt, on_windows);
      return true;
    });
  }
  for (const auto& c : file_directory_clashes(files, dir_keys))
    s.add("WC401",
          "installs '" + clip_for_display(c.key) + "' as a file, and the entry '" +
              clip_for_display(f.entries[c.dir].name) + "' as a directory: installers fail half-way",
          f.entries[c.file].name);
}

// WC706: entries a forbid glob names, by their archive path or by where they install. A glob
// says what must not be installed: `tests/**` bans pkg-1.0.data/platlib/tests/x.py as well, which
// lands in site-packages as tests/x.py. Only the library schemes map (scripts, headers and data
// install outside site-packages, where the globs' paths do not point).
void forbidden(const WheelFacts& f, FindingSink& s) {
  if (s.policy().forbid.empty()) return;
  std::vector<GlobMatcher> globs;
  for (const auto& rule : s.policy().forbid) globs.emplace_back(rule.glob);
  for (const auto& e : f.entries) {
    const auto t = install_target_view(e.name);  // views of the name: no copies per entry
    const std::optional<std::string_view> installed =
        t && t->library() && t->path != e.name ? std::optional(t->path) : std::nullopt;
    for (size_t g = 0; g < globs.size(); ++g) {
      const auto& rule = s.policy().forbid[g];
      bool by_name = globs[g](e.name);
      if (!by_name && !(installed && globs[g](*installed))) continue;
      s.add("WC706",
            (by_name ? std::string() : "installs to '" + clip_for_display(*installed) + "', which ") +
                "matches forbidden pattern '" + rule.glob + "'" + (rule.reason.empty() ? "" : ": " + rule.reason),
            e.name, std::nullopt, rule.severity);
      break;
    }
  }
}

}  // namespace

void index_hash_rule(const WheelFacts& f, FindingSink& s) {
  if (f.index_sha256.empty() || f.content_sha256.empty() || f.index_sha256 == f.content_sha256) return;
  s.add("WC407", "the file's sha256 is " + f.content_sha256 + " (hashed as it downloaded), but the index page gives " +
                     clip_for_display(f.index_sha256, 80) +
                     ": these are not the bytes the index published, and pip refuses to install them");
}

void archive_rules(const WheelFacts& f, FindingSink& s) {
  index_hash_rule(f, s);
  readability(f, s);
  if (!f.entries.empty()) limits(f, s);
  for (const auto& p : f.unsafe_names) s.add("WC401", p.message, p.entry, p.offset);
  std::vector<bool> unsafe(f.entries.size());
  for (size_t i = 0; i < f.entries.size(); ++i) {
    const EntryFacts& e = f.entries[i];
    std::string why = unsafe_path_reason(e.name, s.policy().limits.max_path_length);
    if (!why.empty()) s.add("WC401", why, e.name), unsafe[i] = true;
    if (e.kind == EntryKind::symlink)
      s.add("WC402", "symbolic link entry (installers write it as a regular file or refuse it)", e.name);
    else if (e.kind == EntryKind::other) {
      char mode[16];
      std::snprintf(mode, sizeof mode, "%06o", e.unix_mode);
      s.add("WC402", std::string("non-regular entry (mode ") + mode + ")", e.name);
    }
  }
  installed_paths(f, s, unsafe);
  uint64_t max = s.policy().limits.max_wheel_bytes;
  if (max && f.file_size > max)
    s.add("WC701", "wheel is " + std::to_string(f.file_size) + " bytes, over the policy's limit of " +
                       std::to_string(max) + " bytes" + size_in_units(max));
  forbidden(f, s);
}

}  // namespace wc
