// WC301-WC307: RECORD against the archive.
#include <algorithm>
#include <deque>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "rules/rules.h"
#include "util/strings.h"

namespace wc {
namespace {

bool is_signature_or_record(const std::string& dist_info, const std::string& path) {
  return path == dist_info + "/RECORD" || path == dist_info + "/RECORD.jws" || path == dist_info + "/RECORD.p7s";
}

void check_row(const WheelFacts& f, const RecordRow& row, FindingSink& s) {
  const std::string record = f.dist_info + "/RECORD";
  std::string where = "line " + std::to_string(row.line) + ": ";
  if (row.path.empty()) {
    s.add("WC301", "RECORD " + where + "empty path", record);
    return;
  }
  if (!row.size.empty() && row.size.find_first_not_of("0123456789") != std::string::npos)
    s.add("WC301", "RECORD " + where + "size '" + clip_for_display(row.size, 40) + "' is not a number", row.path);
  if (row.hash.empty()) {
    if (!is_signature_or_record(f.dist_info, row.path)) s.add("WC306", "RECORD has no hash for this file", row.path);
    return;
  }
  auto eq = row.hash.find('=');
  if (eq == std::string::npos) {
    s.add("WC301", "RECORD " + where + "hash '" + clip_for_display(row.hash, 100) + "' is not algorithm=digest",
          row.path);
    return;
  }
  std::string algo = to_lower(row.hash.substr(0, eq)), digest = row.hash.substr(eq + 1);
  if (algo == "md5" || algo == "sha1" || algo == "sha224") {
    s.add("WC306", "RECORD uses " + algo + ", which the wheel spec forbids (sha256 or stronger)", row.path);
    return;
  }
  if (algo != "sha256" && algo != "sha384" && algo != "sha512") {
    s.add("WC306", "RECORD uses unknown hash algorithm '" + clip_for_display(algo, 40) + "'", row.path);
    return;
  }
  const EntryFacts* e = f.find_entry(row.path);
  if (!e || e->kind != EntryKind::file) return;  // WC305 / WC402 say why
  bool size_given = !row.size.empty() && row.size.find_first_not_of("0123456789") == std::string::npos;
  if (!e->complete()) {
    // Not read (--depth metadata, a limit): its hash is unknown, but the zip declares its size.
    if (e->read_error.empty() && !e->skipped.empty() && size_given && row.size != std::to_string(e->size))
      s.add("WC303", "the archive declares " + std::to_string(e->size) + " bytes, RECORD says " + row.size, row.path);
    return;  // WC403 / WC404 say why it was not read
  }
  std::string actual = algo == "sha256" ? e->sha256 : (e->other_digests.count(algo) ? e->other_digests.at(algo) : "");
  if (!actual.empty() && actual != digest)
    s.add("WC302", algo + " is " + actual + ", RECORD says " + clip_for_display(digest, 100), row.path);
  if (size_given && row.size != std::to_string(e->bytes_read))
    s.add("WC303", "size is " + std::to_string(e->bytes_read) + " bytes, RECORD says " + row.size, row.path);
}

}  // namespace

void record_rules(const WheelFacts& f, FindingSink& s) {
  // WC307 holds for any archive, RECORD or not. Hashed by views into the entries (thousands of
  // names: no tree of copies).
  std::unordered_map<std::string_view, int> names;
  std::unordered_map<std::string_view, std::string_view> folded;
  std::deque<std::string> lowered;  // lower-case copies of names that have upper case
  names.reserve(f.entries.size());
  folded.reserve(f.entries.size());
  for (const auto& e : f.entries) {
    if (++names[e.name] == 2) s.add("WC307", "the archive holds this name more than once", e.name);
    std::string_view key = e.name;
    if (std::any_of(e.name.begin(), e.name.end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
      key = lowered.emplace_back(to_lower(e.name));
    auto [it, fresh] = folded.emplace(key, e.name);
    if (!fresh && it->second != e.name)
      s.add("WC307",
            "differs only in case from '" + clip_for_display(std::string(it->second)) +
                "' (they collide on case-insensitive file systems)",
            e.name, std::nullopt, Severity::warning);
  }
  if (!f.record) return;  // missing RECORD is reported by the layout check
  const std::string record = f.dist_info + "/RECORD";
  for (const auto& p : f.record->problems) s.add("WC301", "RECORD " + p, record);
  std::unordered_set<std::string_view> listed;
  listed.reserve(f.record->rows.size());
  for (const auto& row : f.record->rows) {
    if (!listed.insert(row.path).second) {
      s.add("WC301", "RECORD lists this path more than once", row.path);
      continue;
    }
    check_row(f, row, s);
    if (!f.find_entry(row.path)) s.add("WC305", "RECORD lists a file the archive lacks", row.path);
  }
  for (const auto& e : f.entries) {
    if (e.kind == EntryKind::directory || listed.count(e.name) || is_signature_or_record(f.dist_info, e.name)) continue;
    s.add("WC304", "archive entry is not listed in RECORD", e.name);
  }
}

}  // namespace wc
