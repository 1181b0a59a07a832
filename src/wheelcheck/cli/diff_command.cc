// `wheelcheck diff OLD NEW`: what changed between two builds, and which changes are regressions
// (pipeline/diff).
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "pipeline/check.h"
#include "pipeline/diff.h"

namespace wc {

int run_diff(const DiffArgs& a) {
  Policy policy = load_policy(a.policy);
  const DiffSide before = load_diff_side(a.old_side, a.match, policy, default_jobs());
  const DiffSide now = load_diff_side(a.new_side, a.match, policy, default_jobs());
  DiffResult res = diff_sides(before, now, policy);  // points into both sides
  std::string text = a.format == "json"       ? diff_to_json(res).dump(2) + "\n"
                     : a.format == "markdown" ? diff_to_markdown(res)
                                              : diff_to_text(res);
  if (a.output.empty()) {
    std::cout << text;
  } else {
    std::ofstream file(a.output, std::ios::binary);
    if (!(file << text)) throw std::runtime_error(a.output + ": cannot write");
  }
  return res.regression() ? cli::kExitFail : cli::kExitPass;
}

const char* const kDiffFooter = R"(Examples:
  wheelcheck diff last-night.json dist/                 # against yesterday's report
  wheelcheck diff old/ new/ --format markdown >> "$GITHUB_STEP_SUMMARY"

Exit codes: 0 no regression, 1 a regression (WC702, WC710-WC716 errors), 2 bad input.)";

}  // namespace wc
