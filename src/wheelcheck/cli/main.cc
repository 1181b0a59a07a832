// wheelcheck: the CLI. main() is a table of contents: it declares the commands and their flags;
// each command lives in its own file (src/wheelcheck/cli/*_command.cc, declared in commands.h).
#include <CLI/CLI.hpp>
#include <string>

#include "cli/commands.h"
#include "cli_support/cli_support.h"
#include "util/memory.h"
#include "wheelcheck_version.h"

int main(int argc, char** argv) {
  using namespace wc;
  keep_freed_memory_for_reuse();
  CLI::App app{"wheelcheck: release validation for Python wheels with native and CUDA code"};
  app.set_version_flag("--version", std::string("wheelcheck ") + WHEELCHECK_VERSION);
  app.require_subcommand(1);

  CheckArgs check;
  check.version = WHEELCHECK_VERSION;
  auto* c = app.add_subcommand("check", "Check wheels against a policy (exit 0 pass, 1 findings, 2 usage)");
  c->add_option("targets", check.targets,
                "Wheel files, directories of wheels, wheel URLs, index project pages (PEP 503/691)")
      ->required();
  auto* policy_opt =
      c->add_option("-p,--policy", check.policy, "Policy name (shipped) or JSON file")->capture_default_str();
  c->add_option("--config", check.config,
                "A pyproject.toml whose [tool.wheelcheck] table to use (default: the nearest one upward)");
  c->add_flag("--no-config", check.no_config, "Ignore [tool.wheelcheck] in pyproject.toml")->excludes("--config");
  cli::add_report_options(c, check.out);
  cli::add_filter_options(c, check.out);
  c->add_option("--match", check.match, "With an index URL: only wheels whose file name matches this glob");
  c->add_option("-j,--jobs", check.jobs, "Wheels checked in parallel (default: the number of cores)")
      ->check(CLI::Range(1u, 256u));
  c->add_flag("-q,--quiet", check.quiet, "No progress on stderr");
  c->add_flag("--facts", check.facts, "Include extracted facts in JSON reports");
  c->add_flag("--no-binaries", check.no_binaries,
              "Skip ELF/Mach-O/PE/fatbin analysis (archive and metadata checks only)");
  c->add_option(
       "--depth", check.depth,
       "full: inflate and hash every entry, parse binaries whole; metadata: central directory, dist-info and binary "
       "headers only (sub-second on any wheel; hashes, symbol versions and GPU code not checked)")
      ->check(CLI::IsMember({"full", "metadata"}))
      ->capture_default_str();
  c->add_option("--baseline", check.baseline, "A previous JSON report: wheel and large-entry sizes compared (WC702)");
  c->add_option("--resolve-deps", check.resolve_deps,
                "INDEX (e.g. https://pypi.org/simple): fetch the dependency wheels the providers table says install "
                "needed libraries (central directory and headers, by range requests) and resolve needs against them");
  c->add_option("--trusted-root", check.trusted_root,
                "A Sigstore trusted_root.json, pinned: the PEP 740 attestations beside each file (<file>.provenance, "
                ".publish.attestation, .slsa.attestation) are verified offline against it (WC911-WC913)")
      ->check(CLI::ExistingFile);
  c->add_option(
       "--provenance", check.provenance_dir,
       "DIR: a folder holding the attestations (<file>.provenance ...), looked in besides each file's own folder")
      ->check(CLI::ExistingDirectory);
  c->add_option("--shard", check.shard,
                "I/N: check only the I-th of N parts of the targets (a deterministic partition by file name); "
                "`merge` combines the shard reports and runs the release-set rules");

  c->footer(kCheckFooter);

  InspectArgs inspect;
  auto* i = app.add_subcommand("inspect", "Print the facts extracted from wheels and sdists");
  i->add_option("targets", inspect.targets, "Wheel and sdist files, directories, URLs, index pages")->required();
  i->add_option("-f,--format", inspect.format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  i->add_option("-o,--output", inspect.output, "Write here instead of stdout");
  i->add_option("-p,--policy", inspect.policy, "Policy whose tables (CUDA variants, version file) inform the facts");
  i->add_option("--depth", inspect.depth,
                "full, or metadata: the central directory, dist-info and binary headers only (a remote wheel costs a "
                "few range requests)")
      ->check(CLI::IsMember({"full", "metadata"}))
      ->capture_default_str();
  i->footer(kInspectFooter);

  MergeArgs merge;
  merge.version = WHEELCHECK_VERSION;
  auto* m = app.add_subcommand(
      "merge", "Combine JSON reports of shards into one verdict, with the release-set rules over all of them");
  m->add_option("reports", merge.files, "JSON reports written by check --report json:FILE")->required();
  m->add_option("-p,--policy", merge.policy, "Policy for the release-set rules (default: the one the reports name)");
  m->add_option("--baseline", merge.baseline, "A previous JSON report: sizes compared (WC702)");
  cli::add_report_options(m, merge.out);
  cli::add_filter_options(m, merge.out);
  m->add_flag("-q,--quiet", merge.quiet, "Accepted as check takes it (merge shows no progress)");
  m->footer(kMergeFooter);

  DiffArgs diff;
  auto* d = app.add_subcommand("diff", "What changed between two builds, and which changes are regressions");
  d->add_option("old", diff.old_side, "The baseline: wheels (file, folder, URL) or a JSON report")->required();
  d->add_option("new", diff.new_side, "Today's wheels (file, folder, URL) or a JSON report")->required();
  d->add_option("-f,--format", diff.format, "text, json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
  d->add_option("-o,--output", diff.output, "Write here instead of stdout");
  d->add_option("-p,--policy", diff.policy, "Policy (its baseline section: public libraries, allowed regressions)");
  d->add_option("--match", diff.match, "With an index URL: only wheels whose file name matches this glob");
  d->footer(kDiffFooter);

  std::string rules_format = "text";
  std::vector<std::string> rule_ids;
  auto* r = app.add_subcommand("rules", "List the rule catalogue, or explain rules: rules WC502");
  r->add_option("-f,--format", rules_format, "text, json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  r->add_option("ids", rule_ids, "Rules to explain (what each checks, why, how to fix or waive it)");

  PolicyArgs policy;
  auto* p = app.add_subcommand("policy", "Validate or show policies");
  p->require_subcommand(1);
  p->add_subcommand("validate", "Check policy files (JSON pointer and line for each mistake)")
      ->add_option("files", policy.files)
      ->required();
  p->add_subcommand("show", "Print a policy with everything it extends merged in")
      ->add_option("policy", policy.spec, "Name or file");
  p->add_subcommand("list", "List the shipped policies");
  p->add_subcommand("schema", "Print the policy JSON Schema");

  if (auto rc = cli::parse(app, argc, argv)) return *rc;
  return cli::guarded("wheelcheck", [&]() -> int {
    if (*c) {
      check.policy_given = policy_opt->count() > 0;
      return run_check(check);
    }
    if (*i) return run_inspect(inspect);
    if (*m) return run_merge(merge);
    if (*d) return run_diff(diff);
    if (*r) return run_rules(rules_format, rule_ids);
    policy.verb = p->get_subcommands().front()->get_name();
    return run_policy(policy);
  });
}
