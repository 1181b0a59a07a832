// `wheelcheck merge`: the JSON reports of shards (one nightly gate split over machines) into one
// verdict, with the release-set rules over all of them (pipeline/merge).
#include "cli/commands.h"
#include "pipeline/merge.h"
#include "util/json_text.h"

namespace wc {

int run_merge(const MergeArgs& a) {
  MergeState st;
  st.report.version = a.version;
  for (const auto& file : a.files) merge_report(st, file, read_json_file(file));
  return cli::emit_reports(finish_merge(std::move(st), a.policy, a.baseline), a.out);
}

const char* const kMergeFooter = R"(Examples:
  wheelcheck check dist/ --shard 1/4 --report json:shard1.json   # one job per shard ...
  wheelcheck merge shard*.json --report junit:gate.xml           # ... one verdict over all of them

Environment: NO_COLOR, FORCE_COLOR, GITHUB_STEP_SUMMARY (see check --help).
Exit codes: 0 everything passes, 1 findings, 2 usage error or reports that do not belong together.)";

}  // namespace wc
