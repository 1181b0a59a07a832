// Shard reports combined into one run (`wheelcheck merge`): every shard of one run present once
// (same N, same target list), no wheel in two reports, then the release-set rules over the union.
// A report is untrusted input: every shape and number is checked before it is used or sized by.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report.h"
#include "rules/release/release_set.h"

namespace wc {

struct MergeState {
  RunReport report;
  std::vector<std::string> files;           // in the order given
  std::map<unsigned, std::string> shards;   // index -> file
  std::optional<ShardInfo> first;           // the first shard's run
  std::map<std::string, std::string> seen;  // wheel file name -> report file
  std::vector<SetMember> members;
};

// Adds the report `j` read from `file`. Throws std::runtime_error naming the file and what is wrong
// (not a report, a shard of another run, a wheel twice, a value of the wrong type).
void merge_report(MergeState& st, const std::string& file, const nlohmann::json& j);

// Checks that every shard is there, then judges the set with `policy` (the reports' own when empty)
// and `baseline` (a previous report, may be empty). Throws std::runtime_error for a missing shard.
RunReport finish_merge(MergeState st, const std::string& policy, const std::string& baseline);

}  // namespace wc
