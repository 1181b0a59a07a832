// WC401-WC405 archive safety, WC701 wheel size, WC706 forbidden content.
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

std::string unsafe_path_reason(const std::string& name, uint64_t max_len) {
  if (name.empty()) return "empty name";
  if (name.find('\0') != std::string::npos) return "name contains NUL";
  if (!is_valid_utf8(name)) return "name is not valid UTF-8";
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return "name contains a control character";
  if (name.find('\\') != std::string::npos) return "name contains a backslash";
  if (name[0] == '/') return "absolute path";
  if (name.size() >= 2 && is_alpha(name[0]) && name[1] == ':') return "drive letter";
  if (name.size() > max_len)
    return "path is " + std::to_string(name.size()) + " bytes, over the limit of " + std::to_string(max_len);
  auto parts = split(name, '/');
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "..") return "'..' component escapes the install directory";
    if (parts[i] == ".") return "'.' component";
    if (parts[i].empty() && i + 1 != parts.size()) return "empty path component";
    if (parts[i].size() > 255) return "path component over 255 bytes";
  }
  return "";
}

void limits(const WheelFacts& f, FindingSink& s) {
  const Limits& lim = s.policy().limits;
  if (f.entries.size() > lim.max_entries)
    s.add("WC403", std::to_string(f.entries.size()) + " entries, over the limit of " + std::to_string(lim.max_entries));
  ArchiveTotals totals;
  for (const auto& e : f.entries) {
    totals.add(e.size, e.compressed_size);
    if (e.size < lim.ratio_min_entry_bytes) continue;
    double ratio = e.compressed_size ? double(e.size) / double(e.compressed_size) : double(e.size);
    if (ratio > lim.max_compression_ratio) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.0f", ratio);
      s.add("WC403",
            "compression ratio " + std::string(buf) + ":1 (" + std::to_string(e.compressed_size) + " -> " +
                std::to_string(e.size) + " bytes) is over the limit of " +
                std::to_string(int(lim.max_compression_ratio)) + ":1",
            e.name);
    }
  }
  if (totals.declared > lim.max_total_uncompressed_bytes)
    s.add("WC403", "entries declare " + std::to_string(totals.declared) + " uncompressed bytes, over the limit of " +
                       std::to_string(lim.max_total_uncompressed_bytes));
  if (lim.wheel_over_ratio(totals.declared, totals.compressed)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f",
                  totals.compressed ? double(totals.declared) / double(totals.compressed) : 0.0);
    s.add("WC403",
          "the wheel inflates " + std::to_string(totals.compressed) + " compressed bytes to " +
              std::to_string(totals.declared) + " (" + (totals.compressed ? std::string(buf) + ":1" : "from nothing") +
              "), over the limit of " + std::to_string(int(lim.max_compression_ratio)) + ":1 for wheels over " +
              std::to_string(lim.ratio_min_entry_bytes >> 20) + " MiB; entries over that ratio were not inflated");
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

}  // namespace

void archive_rules(const WheelFacts& f, FindingSink& s) {
  readability(f, s);
  if (!f.entries.empty()) limits(f, s);
  for (const auto& p : f.unsafe_names) s.add("WC401", p.message, p.entry, p.offset);
  for (const auto& e : f.entries) {
    std::string why = unsafe_path_reason(e.name, s.policy().limits.max_path_length);
    if (!why.empty()) s.add("WC401", why, e.name);
    if (e.kind == EntryKind::symlink)
      s.add("WC402", "symbolic link entry (installers write it as a regular file or refuse it)", e.name);
    else if (e.kind == EntryKind::other) {
      char mode[16];
      std::snprintf(mode, sizeof mode, "%06o", e.unix_mode);
      s.add("WC402", std::string("non-regular entry (mode ") + mode + ")", e.name);
    }
  }
  uint64_t max = s.policy().limits.max_wheel_bytes;
  if (max && f.file_size > max)
    s.add("WC701",
          "wheel is " + std::to_string(f.file_size) + " bytes, over the policy's limit of " + std::to_string(max));
  for (const auto& e : f.entries) {
    for (const auto& rule : s.policy().forbid) {
      if (!glob_match(rule.glob, e.name)) continue;
      s.add("WC706", "matches forbidden pattern '" + rule.glob + "'" + (rule.reason.empty() ? "" : ": " + rule.reason),
            e.name, std::nullopt, rule.severity);
      break;
    }
  }
}

}  // namespace wc
