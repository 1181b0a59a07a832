// wheelcheck: the CLI. main() is a table of contents; each verb is a small function.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "binary/binary_facts.h"
#include "catalog/catalog.h"
#include "cli_support/cli_support.h"
#include "facts/analyze.h"
#include "facts/cuda_facts.h"
#include "io/targets.h"
#include "pipeline/check.h"
#include "pipeline/diff.h"
#include "pipeline/merge.h"
#include "policy/policy.h"
#include "policy/project_config.h"
#include "report/report.h"
#include "rules/install_set.h"
#include "rules/platform_tag.h"
#include "rules/sbom_rules.h"
#include "rules/symbol_binding.h"
#include "rules/torch_abi.h"
#include "util/json_text.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheelcheck_version.h"

namespace wc {
namespace {

using cli::kExitFail;
using cli::kExitPass;
using cli::kExitUsage;

struct CheckArgs {
  std::vector<std::string> targets;
  std::string policy = "default";
  cli::ReportOptions out;
  unsigned jobs = 0;
  bool quiet = false, facts = false, no_binaries = false;
  std::string match;
  std::string depth = "full";
  std::string baseline, shard, resolve_deps;
  std::string trusted_root, provenance_dir;  // PEP 740
  bool policy_given = false;                 // -p on the command line (it overrides the project's policy)
  std::string config;                        // --config FILE: this pyproject.toml instead of the one found
  bool no_config = false;                    // --no-config: no pyproject.toml
};

// The project's [tool.wheelcheck] (pyproject.toml, found from the current directory upward) under
// the flags: --policy replaces its policy (its waivers, rules and release matrix still apply on
// top), --ignore/--select replace its lists, --strict or its strict makes warnings fail.
Policy apply_project_config(CheckArgs& a) {
  std::optional<ProjectConfig> cfg;
  if (!a.config.empty()) {
    cfg = read_project_config(a.config);
    if (!cfg) throw std::runtime_error(a.config + ": no [tool.wheelcheck] table");
  } else if (!a.no_config) {
    cfg = find_project_config(".");
  }
  if (!cfg) return load_policy(a.policy);
  if (a.out.ignore.empty() && cfg->ignore) a.out.ignore = *cfg->ignore;
  if (a.out.select.empty() && cfg->select) a.out.select = *cfg->select;
  a.out.strict = a.out.strict || cfg->strict.value_or(false);
  namespace fs = std::filesystem;
  const std::string dir = fs::path(cfg->file).parent_path().string();
  std::error_code ec;
  // A policy file named on the command line is relative to the current directory; one named in
  // pyproject.toml, to pyproject.toml.
  std::string base;
  if (a.policy_given)
    base = fs::is_regular_file(a.policy, ec) ? fs::absolute(a.policy, ec).string() : a.policy;
  else if (cfg->policy)
    base =
        fs::is_regular_file(fs::path(dir) / *cfg->policy, ec) ? (fs::path(dir) / *cfg->policy).string() : *cfg->policy;
  else
    base = a.policy;
  if (cfg->policy_overlay.empty()) return load_policy(base);
  nlohmann::json overlay = cfg->policy_overlay;
  overlay["extends"] = base;
  return load_policy_document(overlay, cfg->file + " [tool.wheelcheck]", dir);
}

int run_check(CheckArgs& a) {
  Policy policy = apply_project_config(a);
  cli::report_targets(a.out);  // a bad --format is exit 2 before any wheel is read
  CheckRequest req;
  req.targets = a.targets;
  req.match = a.match;
  req.jobs = a.jobs;
  req.binaries = !a.no_binaries;
  req.depth = a.depth == "metadata" ? Depth::metadata : Depth::full;
  req.baseline = a.baseline;
  req.resolve_deps = a.resolve_deps;
  req.trusted_root = a.trusted_root;
  req.provenance_dir = a.provenance_dir;
  if (!a.shard.empty()) {
    auto slash = a.shard.find('/');
    auto i =
        slash == std::string::npos ? std::nullopt : parse_decimal(std::string_view(a.shard).substr(0, slash), 10000);
    auto n =
        slash == std::string::npos ? std::nullopt : parse_decimal(std::string_view(a.shard).substr(slash + 1), 10000);
    if (!i || !n || *i < 1 || *i > *n)
      throw std::runtime_error("--shard '" + escape_for_display(a.shard) +
                               "': expected I/N with 1 <= I <= N (e.g. 2/8)");
    req.shard_index = static_cast<unsigned>(*i);
    req.shard_count = static_cast<unsigned>(*n);
  }
  req.include_facts = a.facts;
  // The progress line names the wheel being read (the one a slow download is waiting on), with how
  // many are done; it is cleared at the end.
  auto finished = std::make_shared<std::atomic<size_t>>(0);
  if (!a.quiet && ::isatty(STDERR_FILENO)) {
    req.progress = [finished](size_t done, size_t total, const std::string&) {
      *finished = done;
      if (done == total) std::cerr << "\r\033[K" << std::flush;
    };
    req.started = [finished](const std::string& path) {
      std::cerr << "\r\033[K[" << finished->load() << " done] reading " << escape_for_display(target_basename(path))
                << std::flush;
    };
  }
  RunReport report = wc::run_check(req, policy);
  report.version = WHEELCHECK_VERSION;
  return cli::emit_reports(report, a.out);
}

// "sm_80 sm_90a compute_90" -> which compute capabilities can run it (docs/DESIGN.md, "NVIDIA fatbin layout"): SASS
// sm_XY on X.Y..X.9, sm_XYa on X.Y only, PTX compute_XY on X.Y and newer through the driver's JIT.
std::string runs_on(const FatbinFacts& fb) {
  std::vector<std::string> parts;
  auto cc = [](uint32_t sm) { return std::to_string(sm / 10) + "." + std::to_string(sm % 10); };
  std::set<std::string> seen;
  for (const auto& e : fb.entries) {
    if (!seen.insert(e.name()).second) continue;
    if (e.kind == FatbinEntry::ptx)
      parts.push_back(">=" + cc(e.sm) + " (JIT)");
    else if (e.suffix == "a")
      parts.push_back(cc(e.sm) + " only");
    else
      parts.push_back(cc(e.sm) + (e.sm % 10 == 9 ? "" : "-" + std::to_string(e.sm / 10) + ".9"));
  }
  return join(parts, ", ");
}

// "sm_80 x33, sm_86 x33, sm_75 x1": how many fatbin containers carry each architecture.
std::string per_container(const FatbinFacts& fb) {
  std::map<std::string, std::set<size_t>> by_arch;
  for (const auto& e : fb.entries) by_arch[e.name()].insert(e.container);
  std::vector<std::string> parts;
  for (const auto& name : fb.sass()) parts.push_back(name + " x" + std::to_string(by_arch[name].size()));
  for (const auto& name : fb.ptx()) parts.push_back(name + " x" + std::to_string(by_arch[name].size()));
  return join(parts, ", ");
}

// Symbols using the libstdc++ string/list ABIs, per namespace: the policy's (WC512), else the
// five namespaces with the most.
std::string cxx_abi_line(const BinaryFacts& b, const Policy& policy) {
  std::vector<std::pair<std::string, CxxAbiCount>> rows;
  if (policy.abi.cxx11) {
    for (const auto& ns : policy.abi.cxx11->namespaces)
      if (auto it = b.cxx_abi.find(ns); it != b.cxx_abi.end()) rows.emplace_back(ns, it->second);
  } else {
    rows.assign(b.cxx_abi.begin(), b.cxx_abi.end());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
      return x.second.cxx11 + x.second.pre_cxx11 > y.second.cxx11 + y.second.pre_cxx11;
    });
    if (rows.size() > 5) rows.resize(5);
  }
  std::vector<std::string> parts;
  for (const auto& [ns, n] : rows)
    parts.push_back(ns + ":: " + std::to_string(n.cxx11) + " C++11 / " + std::to_string(n.pre_cxx11) + " pre-C++11");
  return parts.empty() ? "no std::string/std::list symbols in the policy's namespaces" : join(parts, ", ");
}

// PEP 770: each document's parse (format, primary, components and what each declares in the wheel),
// then which bundled libraries no component declares.
void print_sbom_text(const WheelFacts& f, std::ostream& out) {
  SbomCoverage cov = sbom_coverage(f);
  if (f.sboms.empty() && cov.bundled.empty()) return;
  std::map<std::pair<size_t, size_t>, std::vector<std::string>> declares;  // (document, component) -> libraries
  for (size_t i = 0; i < cov.bundled.size(); ++i)
    if (const auto& l = cov.declared_by[i])
      declares[{l->document, l->component}].push_back(cov.bundled[i].entry + " (by " + l->how + ")");
  for (size_t di = 0; di < f.sboms.size(); ++di) {
    const SbomDocument& d = f.sboms[di];
    out << "  sbom      " << escape_for_display(d.entry) << ": ";
    if (d.unknown())
      out << (d.errors.empty() ? (d.known_as.empty() ? std::string("a format not read") : d.known_as + " (not read)")
                               : escape_for_display(d.errors.front()))
          << "\n";
    if (d.unknown()) continue;
    out << d.format << " " << escape_for_display(d.spec_version) << ", " << d.component_count() << " components"
        << (d.file_count() ? ", " + std::to_string(d.file_count()) + " files" : "")
        << (d.tools.empty() ? "" : ", by " + escape_for_display(join(d.tools, ", "))) << "\n";
    if (d.primary >= 0) {
      const auto& p = d.components[d.primary];
      out << "            primary " << escape_for_display(p.purl.empty() ? p.name + " " + p.version : p.purl) << "\n";
    }
    size_t shown = 0;
    const size_t listed =
        d.component_count() - (d.primary >= 0 && !d.components[d.primary].is_file ? 1 : 0);  // all but the primary
    for (size_t ci = 0; ci < d.components.size(); ++ci) {
      const auto& c = d.components[ci];
      if (c.is_file || static_cast<int>(ci) == d.primary) continue;
      if (shown++ == 40) {
        out << "            ... " << (listed - 40) << " more components\n";
        break;
      }
      out << "            " << escape_for_display(c.name)
          << (c.version.empty() ? "" : " " + escape_for_display(c.version))
          << (c.purl.empty() ? "" : "  " + escape_for_display(c.purl)) << "\n";
      if (auto it = declares.find({di, ci}); it != declares.end())
        for (const auto& lib : it->second) out << "              declares " << escape_for_display(lib) << "\n";
    }
  }
  if (!cov.bundled.empty()) {
    out << "  bundled   " << cov.bundled.size() << " native librar" << (cov.bundled.size() == 1 ? "y" : "ies")
        << ", declared " << cov.declared() << "\n";
    for (const auto* b : cov.undeclared())
      out << "            undeclared " << escape_for_display(b->entry)
          << (b->upstream.empty() ? "" : " (" + b->upstream + ")") << "\n";
  }
}

std::string binding_line(const SymbolBinding& sb) {
  if (!sb.not_judged.empty()) return "not bound: " + sb.not_judged;
  auto list = [](const std::vector<std::pair<std::string, size_t>>& v) {
    std::vector<std::string> parts;
    for (const auto& [what, n] : v) parts.push_back(std::to_string(n) + " " + escape_for_display(what));
    return join(parts, "; ");
  };
  size_t bound = 0, trusted = 0;
  for (const auto& [what, n] : sb.bound) bound += n;
  for (const auto& [what, n] : sb.trusted) trusted += n;
  std::string s = std::to_string(sb.undefined) + " undefined: " + std::to_string(bound) + " bound" +
                  (sb.bound.empty() ? "" : " (" + list(sb.bound) + ")") + ", " + std::to_string(trusted) +
                  " taken on trust" + (sb.trusted.empty() ? "" : " (" + list(sb.trusted) + ")") + ", " +
                  std::to_string(sb.unbound) + " bound nowhere";
  return s;
}

void print_inspect_text(const WheelFacts& f, const CudaFacts& cuda, const JustifiedTag& justified, const Policy& policy,
                        const std::vector<SymbolBinding>& bindings, std::ostream& out) {
  out << escape_for_display(f.path) << "  (" << f.file_size << " bytes, " << f.entries.size() << " entries"
      << (f.zip64 ? ", ZIP64" : "") << ")\n";
  const auto& n = f.filename;
  if (n.valid) {
    out << "  name      " << n.name << " " << (n.version ? n.version->normalized() : n.version_text)
        << (n.build ? " build " + n.build->number + n.build->suffix : "") << "\n  tags     ";
    for (const auto& t : n.tags) out << " " << t.str();
    out << "\n";
  } else {
    out << "  name      invalid: " << n.error << "\n";
  }
  for (const auto& p : f.unreadable) out << "  unreadable: " << escape_for_display(p.message) << "\n";
  if (!f.dist_info.empty()) out << "  dist-info " << escape_for_display(f.dist_info) << "\n";
  if (f.metadata) {
    for (const char* k : {"Metadata-Version", "Name", "Version", "Requires-Python"})
      if (auto v = f.metadata->get(k)) out << "  " << k << ": " << escape_for_display(*v) << "\n";
    for (const auto& r : f.metadata->get_all("Requires-Dist"))
      out << "  Requires-Dist: " << escape_for_display(r) << "\n";
  }
  if (cuda.variant) out << "  CUDA      variant " << cuda.variant->name << " (" << cuda.variant->source << ")\n";
  for (const auto& l : cuda.links)
    out << "  CUDA      " << escape_for_display(l.binary) << " links " << l.soname << " (CUDA " << l.major << ")\n";
  for (const auto& p : cuda.pins)
    out << "  CUDA      pin " << escape_for_display(p.requirement) << " (CUDA " << p.major << ")\n";
  if (f.filename.variant_label || f.variant) {
    const auto& doc = f.variant;
    std::string label = f.filename.variant_label.value_or("(none in the file name)");
    out << "  variant   label " << escape_for_display(label);
    if (doc) out << ", variant.json schema " << variant_schema_name(doc->schema);
    out << "\n";
    if (doc)
      for (const auto& [l, props] : doc->variants) {
        out << "            " << escape_for_display(l) << ": " << escape_for_display(describe_variant_properties(props))
            << "\n            selects " << escape_for_display(describe_variant_selection(props)) << "\n";
      }
  }
  print_sbom_text(f, out);
  if (f.binaries.empty()) return;
  std::string ceiling, by;
  for (const auto& b : f.binaries) {
    auto mx = b.max_symbol_versions();
    if (mx.count("GLIBC") && (ceiling.empty() || compare_dotted(mx["GLIBC"], ceiling) > 0))
      ceiling = mx["GLIBC"], by = b.path;
  }
  if (!ceiling.empty()) out << "  glibc     needs " << ceiling << " (set by " << escape_for_display(by) << ")\n";
  if (justified.applies)
    out << "  platform  "
        << (justified.tag ? "binaries justify " + *justified.tag
                          : "no portable tag fits: " + escape_for_display(justified.why))
        << "\n";
  out << "  binaries (" << f.binaries.size() << "):\n";
  for (const auto& b : f.binaries) {
    out << "    " << escape_for_display(b.path) << "\n      " << b.format << " " << b.arch;
    if (b.format == "elf") {
      auto mx = b.max_symbol_versions();
      out << (b.libc.empty() ? "" : " " + b.libc);
      if (mx.count("GLIBC")) out << ", needs GLIBC " << mx["GLIBC"];
      for (const char* p : {"GLIBCXX", "CXXABI", "GCC"})
        if (mx.count(p)) out << ", " << p << " " << mx[p];
      if (b.x86_isa_level) out << ", x86-64-v" << *b.x86_isa_level;
      if (b.exec_stack) out << ", EXECUTABLE STACK";
      out << "\n";
      if (!b.needed.empty()) out << "      needs   " << join(b.needed, " ") << "\n";
      if (!b.rpath.empty()) out << "      rpath   " << join(b.rpath, ":") << "\n";
      if (!b.runpath.empty()) out << "      runpath " << join(b.runpath, ":") << "\n";
      if (!b.cxx_abi.empty()) out << "      C++ ABI " << cxx_abi_line(b, policy) << "\n";
      if (b.symbols)
        out << "      symbols " << b.symbols->defined().size() << " exported, " << b.symbols->undefined().size()
            << " imported\n";
      for (const auto& sb : bindings)
        if (sb.binary == b.path) out << "      binding " << binding_line(sb) << "\n";
      if (TorchAbi t = torch_abi_of(b, policy.abi); t.links_torch)
        out << "      torch   "
            << (t.stable ? "stable ABI" + (t.min_torch.empty()
                                               ? std::string()
                                               : ", needs torch >= " + t.min_torch + " (" + t.newest_shim + ")")
                         : "unstable C++ ABI, " + std::to_string(t.unstable) + " symbols (first " +
                               escape_for_display(t.first_unstable) + ")")
            << "\n";
    } else if (b.format == "macho") {
      out << "\n";
      for (const auto& s : b.slices)
        out << "      slice " << s.arch << " minos " << (s.minos.empty() ? "?" : s.minos) << ", " << s.dylibs.size()
            << " dylibs\n";
      for (const auto& sb : bindings)
        if (sb.binary == b.path) out << "      binding " << binding_line(sb) << "\n";
    } else {
      out << "\n      imports " << join(b.dlls, " ") << "\n";
    }
    if (!b.fatbin.empty()) {
      out << "      GPU: " << (b.cuda_toolkit.empty() ? "" : "built by CUDA " + b.cuda_toolkit + "; ")
          << b.fatbin.containers << " fatbin container(s); SASS " << join(b.fatbin.sass(), " ") << "; PTX "
          << (b.fatbin.ptx().empty() ? "none" : join(b.fatbin.ptx(), " "))
          << "\n      containers per arch: " << per_container(b.fatbin) << "\n      runs on compute capability "
          << runs_on(b.fatbin) << "\n";
    }
    if (!b.hip.empty())
      out << "      AMD GPU: " << (b.hip.error.empty() ? join(b.hip.targets, " ") : escape_for_display(b.hip.error))
          << (b.hip.compression.empty() ? "" : " (" + b.hip.compression + "-compressed bundle)") << "\n";
    for (const auto& e : b.errors) out << "      error: " << escape_for_display(e) << "\n";
  }
}

int run_inspect(const std::vector<std::string>& targets, const std::string& format, const std::string& output,
                const std::string& policy_spec, const std::string& depth) {
  if (format != "text" && format != "json") throw CLI::ValidationError("--format", "inspect prints text or json");
  auto paths = expand_targets(targets);
  std::ofstream file;
  if (!output.empty()) {
    file.open(output, std::ios::binary | std::ios::trunc);
    if (!file) throw std::runtime_error("cannot write " + output);
  }
  std::ostream& out = output.empty() ? std::cout : file;
  Policy policy = load_policy(policy_spec);
  AnalyzeOptions opt = analyze_options_for(policy);
  opt.depth = depth == "metadata" ? Depth::metadata : Depth::full;
  nlohmann::json all = nlohmann::json::array();
  // All at once: the wheels named together are each other's install set, and each binary's
  // undefined symbols are bound against it as WC514 binds them.
  std::vector<WheelFacts> run = analyze_all(paths, opt, 1);
  InstallSetIndex index(run);
  for (const auto& f : run) {
    std::vector<SymbolBinding> bindings =
        symbol_bindings(f, install_set_for(f, run, &index, policy.cuda.import_loaded), policy);
    CudaFacts cuda = derive_cuda_facts(f, policy.cuda);
    JustifiedTag justified = justified_platform_tag(f, policy);
    if (format == "json") {
      auto j = facts_to_json(f);
      j["cuda"] = cuda_facts_to_json(cuda);
      nlohmann::json torch = nlohmann::json::array();
      for (const auto& b : f.binaries)
        if (TorchAbi t = torch_abi_of(b, policy.abi); t.links_torch)
          torch.push_back({{"path", b.path},
                           {"class", t.stable ? "stable" : "unstable"},
                           {"unstable_symbols", t.unstable},
                           {"first_unstable", t.first_unstable},
                           {"shims", t.shims.size()},
                           {"min_torch", t.min_torch.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.min_torch)},
                           {"newest_shim", t.newest_shim},
                           {"unknown_shims", t.unknown_shims}});
      j["torch_abi"] = torch;
      nlohmann::json binding = nlohmann::json::array();
      for (const auto& sb : bindings) {
        nlohmann::json bound = nlohmann::json::array(), trusted = nlohmann::json::array();
        for (const auto& [file, n] : sb.bound) bound.push_back({{"file", file}, {"symbols", n}});
        for (const auto& [why, n] : sb.trusted) trusted.push_back({{"reason", why}, {"symbols", n}});
        binding.push_back(
            {{"path", sb.binary},
             {"undefined", sb.undefined},
             {"bound", bound},
             {"trusted", trusted},
             {"unbound", sb.unbound},
             {"not_judged", sb.not_judged.empty() ? nlohmann::json(nullptr) : nlohmann::json(sb.not_judged)}});
      }
      j["symbol_binding"] = binding;
      j["justified_platform_tag"] = justified.tag ? nlohmann::json(*justified.tag) : nlohmann::json(nullptr);
      if (justified.applies && !justified.tag) j["justified_platform_tag_reason"] = justified.why;
      all.push_back(j);
    } else {
      print_inspect_text(f, cuda, justified, policy, bindings, out);
    }
  }
  if (format == "json")
    // One shape for one wheel or many: {"schema": "wheelcheck-inspect/1", "wheels": [...]}.
    out << nlohmann::json{{"schema", "wheelcheck-inspect/1"}, {"wheels", all}}.dump(
               2, ' ', false, nlohmann::json::error_handler_t::replace)
        << "\n";
  return kExitPass;
}

// Combines the JSON reports of shards (one nightly gate split over machines) into one verdict.
struct MergeArgs {
  std::vector<std::string> files;
  cli::ReportOptions out;
  std::string policy, baseline;
  bool quiet = false;
};

int run_merge(const MergeArgs& a) {
  MergeState st;
  st.report.version = WHEELCHECK_VERSION;
  for (const auto& file : a.files) merge_report(st, file, read_json_file(file));
  return cli::emit_reports(finish_merge(std::move(st), a.policy, a.baseline), a.out);
}

// Word-wrapped at 100 columns, each line indented.
std::string wrapped(std::string_view text, const std::string& indent) {
  std::string out, line;
  for (size_t i = 0; i < text.size();) {
    size_t sp = text.find(' ', i);
    std::string_view word = text.substr(i, sp == std::string_view::npos ? std::string_view::npos : sp - i);
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > 100) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + std::string(word);
    if (sp == std::string_view::npos) break;
    i = sp + 1;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

// `rules` lists the catalogue; `rules WC502 [...]` explains those rules (unknown IDs: exit 2 with
// the nearest known one).
int run_rules(const std::string& format, const std::vector<std::string>& ids) {
  std::vector<const RuleInfo*> chosen;
  for (const auto& id : ids) {
    const RuleInfo* r = find_rule(to_upper(id));
    if (!r) {
      std::vector<std::string> known;
      for (const auto& k : wheelcheck_rules()) known.push_back(k.id);
      std::cerr << "wheelcheck: unknown rule '" << escape_for_display(id) << "' (did you mean '"
                << nearest_first(to_upper(id), known).front() << "'? `wheelcheck rules` lists them)\n";
      return kExitUsage;
    }
    chosen.push_back(r);
  }
  const bool explain = !chosen.empty();
  if (!explain)
    for (const auto& r : wheelcheck_rules()) chosen.push_back(&r);
  if (format == "json") {
    nlohmann::json a = nlohmann::json::array();
    for (const RuleInfo* r : chosen) {
      nlohmann::json row = {
          {"id", r->id}, {"severity", severity_name(r->default_severity)}, {"title", r->title}, {"area", r->area}};
      if (const RuleHelp* h = find_rule_help(r->id))
        row.update({{"checks", h->checks}, {"why", h->why}, {"fix", h->fix}, {"example", h->example}});
      a.push_back(std::move(row));
    }
    std::cout << a.dump(2) << "\n";
    return kExitPass;
  }
  if (!explain) {
    for (const RuleInfo* r : chosen)
      std::cout << r->id << "  " << severity_name(r->default_severity)
                << std::string(8 - std::string(severity_name(r->default_severity)).size(), ' ') << r->title << "\n";
    std::cout << "\n`wheelcheck rules WC502` explains one rule.\n";
    return kExitPass;
  }
  for (size_t k = 0; k < chosen.size(); ++k) {
    const RuleInfo* r = chosen[k];
    const RuleHelp* h = find_rule_help(r->id);
    std::cout << (k ? "\n" : "") << r->id << "  " << severity_name(r->default_severity) << " by default  (" << r->area
              << ")\n"
              << wrapped(r->title, "");
    if (h) {
      std::cout << "\nWhat it checks:\n"
                << wrapped(h->checks, "  ") << "\nWhy it matters:\n"
                << wrapped(h->why, "  ") << "\nHow to fix it:\n"
                << wrapped(h->fix, "  ");
    }
    std::cout << "\nHow to waive it:\n"
              << "  for one run:        wheelcheck check --ignore " << r->id << " ...\n"
              << "  with a reason:      {\"waive\": [{\"rule\": \"" << r->id
              << "\", \"path\": \"<entry glob>\", \"reason\": \"...\"}]} in a policy\n"
              << "  everywhere:         {\"rules\": {\"" << r->id << "\": \"off\"}} in a policy\n";
    if (h) std::cout << "\nExample finding (illustrative):\n  " << h->example << "\n";
  }
  return kExitPass;
}

int run_policy_validate(const std::vector<std::string>& files) {
  int rc = kExitPass;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::cerr << file << ": cannot read\n";
      rc = kExitUsage;
      continue;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto issues = validate_policy_text(text, file);
    if (issues.empty()) {
      try {
        load_policy(file);  // resolves extends for real
        std::cout << file << ": valid\n";
        continue;
      } catch (const PolicyError& e) {
        issues = e.issues();
      }
    }
    for (const auto& i : issues)
      std::cout << file << (i.line ? ":" + std::to_string(i.line) : "") << ": "
                << (i.pointer.empty() ? "(document)" : i.pointer) << ": " << i.message << "\n";
    rc = kExitUsage;
  }
  return rc;
}

}  // namespace
}  // namespace wc

int main(int argc, char** argv) {
  using namespace wc;
  CLI::App app{"wheelcheck: release validation for Python wheels with native and CUDA code"};
  app.set_version_flag("--version", std::string("wheelcheck ") + WHEELCHECK_VERSION);
  app.require_subcommand(1);

  CheckArgs check;
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

  c->footer(R"(Examples:
  wheelcheck check dist/                                   # every wheel of a build
  wheelcheck check dist/*.whl --policy pytorch --json      # a project policy, JSON on stdout
  wheelcheck check https://pypi.org/simple/torch/ --match '*cp312*manylinux*' --depth metadata
  wheelcheck check nightly/ --baseline last.json --report junit:gate.xml --report sarif:gate.sarif
  wheelcheck check dist/ --ignore WC107,WC5* --strict

Environment:
  WHEELCHECK_HTTP_TIMEOUT          seconds a stalled transfer may last (60)
  WHEELCHECK_HTTP_REQUEST_TIMEOUT  seconds one request may last (120)
  WHEELCHECK_HTTP_WHEEL_TIMEOUT    seconds for one wheel or index page, retries included (300)
  WHEELCHECK_HTTP_RETRIES          retries of 429/5xx and dropped transfers (3)
  WHEELCHECK_HTTP_COALESCE_GAP     planned ranges closer than this many bytes share a request (65536)
  WHEELCHECK_HTTP_CONNECTIONS      parallel requests to one host (4)
  WHEELCHECK_HTTP_AUTHORIZATION    an Authorization header for private indexes
  NETRC                            credentials file (default ~/.netrc)
  WHEELCHECK_INDEX_MAX_LINKS       wheel links read from one index page (100000)
  WHEELCHECK_POLICY_PATH           folders searched for policy files by name
  NO_COLOR, FORCE_COLOR            colour of text on a terminal (non-empty values count)
  GITHUB_STEP_SUMMARY              with --format github: a Markdown summary is appended there

Configuration: the [tool.wheelcheck] table of the nearest pyproject.toml upward (policy, ignore,
select, strict, and any policy key: waive, rules, release, ...); flags override it; --no-config.

Exit codes: 0 every wheel passes, 1 findings (errors; warnings too with --strict), 2 usage or
configuration error (nothing is judged).)");

  std::vector<std::string> inspect_targets;
  std::string inspect_format = "text", inspect_output, inspect_policy = "default", inspect_depth = "full";
  auto* i = app.add_subcommand("inspect", "Print the facts extracted from wheels");
  i->add_option("targets", inspect_targets, "Wheel files, directories, URLs")->required();
  i->add_option("-f,--format", inspect_format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  i->add_option("-o,--output", inspect_output, "Write here instead of stdout");
  i->add_option("-p,--policy", inspect_policy, "Policy whose tables (CUDA variants, version file) inform the facts");
  i->add_option("--depth", inspect_depth,
                "full, or metadata: the central directory, dist-info and binary headers only (a remote wheel costs a "
                "few range requests)")
      ->check(CLI::IsMember({"full", "metadata"}))
      ->capture_default_str();
  i->footer(R"(Examples:
  wheelcheck inspect dist/torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl
  wheelcheck inspect --format json dist/*.whl

Environment: the WHEELCHECK_HTTP_* variables and NETRC, as for check (see check --help).
Exit codes: 0 facts printed, 2 usage error or a wheel that cannot be opened.)");

  MergeArgs merge;
  auto* m = app.add_subcommand(
      "merge", "Combine JSON reports of shards into one verdict, with the release-set rules over all of them");
  m->add_option("reports", merge.files, "JSON reports written by check --report json:FILE")->required();
  m->add_option("-p,--policy", merge.policy, "Policy for the release-set rules (default: the one the reports name)");
  m->add_option("--baseline", merge.baseline, "A previous JSON report: sizes compared (WC702)");
  cli::add_report_options(m, merge.out);
  cli::add_filter_options(m, merge.out);
  m->add_flag("-q,--quiet", merge.quiet, "Accepted as check takes it (merge shows no progress)");
  m->footer(R"(Examples:
  wheelcheck check dist/ --shard 1/4 --report json:shard1.json   # one job per shard ...
  wheelcheck merge shard*.json --report junit:gate.xml           # ... one verdict over all of them

Environment: NO_COLOR, FORCE_COLOR, GITHUB_STEP_SUMMARY (see check --help).
Exit codes: 0 everything passes, 1 findings, 2 usage error or reports that do not belong together.)");

  std::string diff_old, diff_new, diff_format = "text", diff_output, diff_policy = "default", diff_match;
  auto* d = app.add_subcommand("diff", "What changed between two builds, and which changes are regressions");
  d->add_option("old", diff_old, "The baseline: wheels (file, folder, URL) or a JSON report")->required();
  d->add_option("new", diff_new, "Today's wheels (file, folder, URL) or a JSON report")->required();
  d->add_option("-f,--format", diff_format, "text, json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
  d->add_option("-o,--output", diff_output, "Write here instead of stdout");
  d->add_option("-p,--policy", diff_policy, "Policy (its baseline section: public libraries, allowed regressions)");
  d->add_option("--match", diff_match, "With an index URL: only wheels whose file name matches this glob");
  d->footer(R"(Examples:
  wheelcheck diff last-night.json dist/                 # against yesterday's report
  wheelcheck diff old/ new/ --format markdown >> "$GITHUB_STEP_SUMMARY"

Exit codes: 0 no regression, 1 a regression (WC702, WC710-WC716 errors), 2 bad input.)");

  std::string rules_format = "text";
  auto* r = app.add_subcommand("rules", "List the rule catalogue, or explain rules: rules WC502");
  r->add_option("-f,--format", rules_format, "text or json")->check(CLI::IsMember({"text", "json"}));
  std::vector<std::string> rule_ids;
  r->add_option("ids", rule_ids, "Rules to explain (what each checks, why, how to fix or waive it)");

  auto* p = app.add_subcommand("policy", "Validate or show policies");
  p->require_subcommand(1);
  std::vector<std::string> validate_files;
  auto* pv = p->add_subcommand("validate", "Check policy files (JSON pointer and line for each mistake)");
  pv->add_option("files", validate_files)->required();
  std::string show_spec = "default";
  auto* ps = p->add_subcommand("show", "Print a policy with everything it extends merged in");
  ps->add_option("policy", show_spec, "Name or file");
  auto* pl = p->add_subcommand("list", "List the shipped policies");
  p->add_subcommand("schema", "Print the policy JSON Schema");  // the remaining policy verb

  if (auto rc = cli::parse(app, argc, argv)) return *rc;
  return cli::guarded("wheelcheck", [&]() -> int {
    if (*c) {
      check.policy_given = policy_opt->count() > 0;
      return run_check(check);
    }
    if (*i) return run_inspect(inspect_targets, inspect_format, inspect_output, inspect_policy, inspect_depth);
    if (*r) return run_rules(rules_format, rule_ids);
    if (*d) {
      Policy policy = load_policy(diff_policy);
      const DiffSide before = load_diff_side(diff_old, diff_match, policy, default_jobs());
      const DiffSide now = load_diff_side(diff_new, diff_match, policy, default_jobs());
      DiffResult res = diff_sides(before, now, policy);  // points into both sides
      std::string text = diff_format == "json"       ? diff_to_json(res).dump(2) + "\n"
                         : diff_format == "markdown" ? diff_to_markdown(res)
                                                     : diff_to_text(res);
      if (diff_output.empty()) {
        std::cout << text;
      } else {
        std::ofstream file(diff_output, std::ios::binary);
        if (!(file << text)) throw std::runtime_error(diff_output + ": cannot write");
      }
      return res.regression() ? kExitFail : kExitPass;
    }
    if (*m) return run_merge(merge);
    if (*pv) return run_policy_validate(validate_files);
    if (*ps) {
      std::cout << load_policy(show_spec).document.dump(2) << "\n";
      return kExitPass;
    }
    if (*pl) {
      for (const auto& n : shipped_policy_names()) std::cout << n << "\n";
      for (const auto& [n, file] : installed_policies()) std::cout << n << "  (" << file << ")\n";
      return kExitPass;
    }
    std::cout << policy_schema_text();
    return kExitPass;
  });
}
