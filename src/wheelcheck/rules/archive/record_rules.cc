// WC301-WC307: RECORD against the archive.
#include <algorithm>
#include <deque>
#include <numeric>
#include <optional>
#include <string_view>
#include <vector>

#include "rules/rules.h"
#include "util/strings.h"
#include "util/view_map.h"
#include "wheel/entry_names.h"

namespace wc {
namespace {

// What follows "<dist_info>/" in `path`, when path lies inside that directory. (Views: no string
// is made per row, and a 100,000-entry wheel has as many.)
std::optional<std::string_view> inside(std::string_view dist_info, std::string_view path) {
  if (path.size() <= dist_info.size() || !path.starts_with(dist_info) || path[dist_info.size()] != '/')
    return std::nullopt;
  return path.substr(dist_info.size() + 1);
}

bool is_signature_or_record(std::string_view dist_info, std::string_view path) {
  const auto rest = inside(dist_info, path);
  return rest && (*rest == "RECORD" || *rest == "RECORD.jws" || *rest == "RECORD.p7s");
}

// A signature file anywhere in the dist-info directory, as pypa/installer (sources.py,
// validate_record) recognises one: it refuses a wheel whose RECORD lists it.
bool is_listed_signature(std::string_view dist_info, std::string_view path) {
  if (dist_info.empty() || !inside(dist_info, path)) return false;
  std::string_view last = last_component(path);
  return last == "RECORD.jws" || last == "RECORD.p7s";
}

// One row against the entry it names (`e`, null when the archive has none). Nothing is copied for
// a row that is right (a 100,000-entry wheel has as many rows).
void check_row(const WheelFacts& f, const RecordRow& row, const EntryFacts* e, const std::string& record,
               FindingSink& s) {
  auto where = [&] { return "line " + std::to_string(row.line) + ": "; };
  if (row.path.empty()) {
    s.add("WC301", "RECORD " + where() + "empty path", record);
    return;
  }
  const bool size_given = !row.size.empty() && row.size.find_first_not_of("0123456789") == std::string::npos;
  if (!row.size.empty() && !size_given)
    s.add("WC301", "RECORD " + where() + "size '" + clip_for_display(row.size, 40) + "' is not a number",
          std::string(row.path));
  if (row.hash.empty()) {
    if (!is_signature_or_record(f.dist_info, row.path))
      s.add("WC306", "RECORD has no hash for this file", std::string(row.path));
    return;
  }
  auto eq = row.hash.find('=');
  if (eq == std::string::npos) {
    s.add("WC301", "RECORD " + where() + "hash '" + clip_for_display(row.hash, 100) + "' is not algorithm=digest",
          std::string(row.path));
    return;
  }
  const std::string algo = to_lower(row.hash.substr(0, eq));
  const std::string_view digest = std::string_view(row.hash).substr(eq + 1);
  if (algo == "md5" || algo == "sha1" || algo == "sha224") {
    s.add("WC306", "RECORD uses " + algo + ", which the wheel spec forbids (sha256 or stronger)",
          std::string(row.path));
    return;
  }
  if (algo != "sha256" && algo != "sha384" && algo != "sha512") {
    s.add("WC306", "RECORD uses unknown hash algorithm '" + clip_for_display(algo, 40) + "'", std::string(row.path));
    return;
  }
  if (!e || e->kind != EntryKind::file) return;  // WC305 / WC402 say why
  if (!e->complete()) {
    // Not read (--depth metadata, a limit): its hash is unknown, but the zip declares its size.
    if (e->read_error.empty() && !e->skipped.empty() && size_given && row.size != std::to_string(e->size))
      s.add("WC303", "the archive declares " + std::to_string(e->size) + " bytes, RECORD says " + std::string(row.size),
            std::string(row.path));
    return;  // WC403 / WC404 say why it was not read
  }
  std::string_view actual;
  if (algo == "sha256")
    actual = e->sha256;
  else if (auto it = e->other_digests.find(algo); it != e->other_digests.end())
    actual = it->second;
  if (!actual.empty() && actual != digest)
    s.add("WC302", algo + " is " + std::string(actual) + ", RECORD says " + clip_for_display(digest, 100),
          std::string(row.path));
  if (size_given && row.size != std::to_string(e->bytes_read))
    s.add("WC303", "size is " + std::to_string(e->bytes_read) + " bytes, RECORD says " + std::string(row.size),
          std::string(row.path));
}

}  // namespace

void record_rules(const WheelFacts& f, FindingSink& s) {
  // WC307 holds for any archive, RECORD or not. Flat hash tables of views into the entries (no
  // copy, no node per entry); findings still come in entry order.
  const size_t n = f.entries.size();
  // The name as case-insensitive and normalising file systems see it: NFC and Unicode case folding
  // (where it is not ASCII: Ä and ä are one letter there), lower-cased (ASCII with upper case).
  std::vector<std::string_view> key(n);
  std::deque<std::string> lowered;
  for (size_t i = 0; i < n; ++i) {
    const std::string& name = f.entries[i].name;
    const bool ascii =
        std::all_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    key[i] = !ascii || std::any_of(name.begin(), name.end(), [](char c) { return c >= 'A' && c <= 'Z'; })
                 ? std::string_view(lowered.emplace_back(ascii ? to_lower(name) : casefold_nfc(name)))
                 : std::string_view(name);
  }
  // The second entry of a name (reported once): an entry the name index does not lead to repeats
  // an earlier one, and only the first repeat of each is marked.
  std::vector<bool> second(n, false), named_again(n, false);
  std::vector<size_t> first_of(n);  // the first entry of each entry's name
  // Names all distinct (the index holds one per entry): each entry is the first of its name, with
  // no lookup of 100,000 names.
  const bool distinct = f.names_distinct();
  if (distinct) {
    std::iota(first_of.begin(), first_of.end(), size_t{0});
  } else {
    for (size_t i = 0; i < n; ++i) {
      const EntryFacts* at = f.find_entry(f.entries[i].name);  // null only for facts never indexed
      const size_t first = first_of[i] = at ? static_cast<size_t>(at - f.entries.data()) : i;
      if (first != i && !named_again[first]) second[i] = named_again[first] = true;
    }
  }
  // The first entry (in archive order) of the same key, when named otherwise. Two entries share a
  // key and differ in name only where one's key is not its name (a folded one): a table holds the
  // folded keys alone, and an entry whose key is its name is found by name, through the index.
  std::vector<size_t> folds_onto(n, SIZE_MAX);
  std::vector<bool> folded(n, false);
  bool any_folded = false;
  for (size_t i = 0; i < n; ++i) {
    folded[i] = key[i] != f.entries[i].name;
    any_folded = any_folded || folded[i];
  }
  if (any_folded) {
    ViewMap<size_t> first_folded;  // a folded key -> its first entry so far
    for (size_t i = 0; i < n; ++i) {
      size_t first = SIZE_MAX;  // of the entries before i with i's key
      if (folded[i]) {
        if (auto [at, fresh] = first_folded.try_emplace(key[i], i); !fresh) first = *at;
        const EntryFacts* same = f.find_entry(std::string(key[i]));  // the first entry named as the key
        const size_t j = same ? static_cast<size_t>(same - f.entries.data()) : SIZE_MAX;
        if (j < i && !folded[j]) first = std::min(first, j);
      } else {
        if (const size_t* at = first_folded.find(key[i])) first = *at;
        if (first_of[i] < i) first = std::min(first, first_of[i]);
      }
      if (first != SIZE_MAX && f.entries[i].name != f.entries[first].name) folds_onto[i] = first;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const std::string& name = f.entries[i].name;
    if (second[i]) s.add("WC307", "the archive holds this name more than once", name);
    if (folds_onto[i] == SIZE_MAX) continue;
    const std::string& other = f.entries[folds_onto[i]].name;
    if (nfc(name) != nfc(other))
      s.add(
          "WC307",
          "differs only in case from '" + clip_for_display(other) + "' (they collide on case-insensitive file systems)",
          name, std::nullopt, Severity::warning);
    else
      s.add("WC307",
            "differs from '" + clip_for_display(other) +
                "' only in Unicode normalisation (NFC/NFD; one file on macOS and wherever names are normalised)",
            name, std::nullopt, Severity::warning);
  }
  if (!f.record) return;  // missing RECORD is reported by the layout check
  const std::string record = f.dist_info + "/RECORD";
  for (const auto& p : f.record->problems) s.add("WC301", "RECORD " + p, record);
  // A row's path leads to the first entry of that name (then the entry index says whether an
  // earlier row listed it, and WC304 asks no table of paths), or to no entry (then a table of the
  // few such paths says it).
  std::vector<bool> listed(n, false);  // by the first entry of each name
  ViewMap<char> missing;               // paths RECORD lists that no entry has
  // Writers list the rows in archive order: with the names all distinct, the entry after the last
  // row's is the only one of its name, so when it is the row's path no table is asked (a lookup
  // in a table of 100,000 names is a cache miss a row).
  size_t after = 0;  // the entry after the last row's
  for (const RecordRow& row : f.record->rows) {
    const EntryFacts* e =
        distinct && after < n && f.entries[after].name == row.path ? &f.entries[after] : f.find_entry(row.path);
    bool repeated;
    if (e) {
      const size_t k = static_cast<size_t>(e - f.entries.data());
      after = k + 1;
      repeated = listed[k];
      listed[k] = true;
    } else {
      repeated = !missing.try_emplace(row.path).second;
    }
    if (repeated) {
      s.add("WC301", "RECORD lists this path more than once", std::string(row.path));
      continue;
    }
    if (is_listed_signature(f.dist_info, row.path))
      s.add("WC301",
            "RECORD lists the signature file " + std::string(last_component(row.path)) +
                ", which must not be in it: pypa/installer refuses to install the wheel",
            std::string(row.path));
    check_row(f, row, e, record, s);
    if (!e) s.add("WC305", "RECORD lists a file the archive lacks", std::string(row.path));
  }
  for (size_t i = 0; i < n; ++i) {
    const EntryFacts& e = f.entries[i];
    if (e.kind == EntryKind::directory || listed[first_of[i]] || is_signature_or_record(f.dist_info, e.name)) continue;
    s.add("WC304", "archive entry is not listed in RECORD", e.name);
  }
}

}  // namespace wc
