// `wheelcheck diff OLD NEW`: what changed between two builds of a release, pair by pair, and which
// changes are regressions (WC710-WC716, WC702). Each side is wheels (files, folders, URLs) or a
// JSON report (its `release` members); the entry lists are compared only when both sides are wheels.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>

#include "catalog/finding.h"
#include "policy/policy.h"
#include "rules/release/regressions.h"

namespace wc {

struct DiffSide {
  std::vector<SetMember> members;
  // Per member (same order), when read from the wheel: entry -> (size, RECORD-form sha256).
  std::vector<std::map<std::string, std::pair<uint64_t, std::string>>> entries;
  bool from_report = false;
};

// Throws std::runtime_error naming the target when it is neither wheels nor a wheelcheck report.
DiffSide load_diff_side(const std::string& target, const std::string& match, const Policy& p, unsigned jobs);

struct EntryChanges {
  std::vector<std::string> added, removed, changed;
  uint64_t bytes_old = 0, bytes_new = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> by_folder;  // top-level folder -> bytes (old, new)
};

struct DiffPair {
  PairChanges changes;
  std::optional<EntryChanges> entries;
  std::vector<Finding> findings;
  std::vector<WaivedFinding> waived;
};

struct DiffResult {
  std::vector<DiffPair> pairs;
  std::vector<std::string> added, removed;  // wheels with no counterpart (file names)
  std::vector<Finding> set_findings;        // WC713
  bool regression() const;
};

// The result points into both sides: keep them alive while it is used.
DiffResult diff_sides(const DiffSide& before, const DiffSide& now, const Policy& p);

nlohmann::json diff_to_json(const DiffResult& r);
std::string diff_to_text(const DiffResult& r);
std::string diff_to_markdown(const DiffResult& r);

}  // namespace wc
