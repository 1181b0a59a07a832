// `wheelcheck inspect`: the facts of wheels (text beside the report formats, report/inspect_text).
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "facts/analyze.h"
#include "facts/cuda_facts.h"
#include "io/targets.h"
#include "pipeline/check.h"
#include "report/inspect_text.h"
#include "rules/loader/install_set.h"
#include "rules/loader/symbol_binding.h"
#include "rules/loader/torch_abi.h"
#include "rules/metadata/platform_tag.h"

namespace wc {

int run_inspect(const InspectArgs& a) {
  const auto& [targets, format, output, policy_spec, depth] = a;
  if (format != "text" && format != "json") throw CLI::ValidationError("--format", "inspect prints text or json");
  // Wheels and sdists (PEP 625) as named, found in folders or listed by index pages.
  std::vector<TargetRef> refs;
  for (auto& r : expand_target_refs(targets))
    if (!r.variants_index) refs.push_back(std::move(r));
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
  std::vector<WheelFacts> run = analyze_all(refs, opt, 1);
  InstallSetIndex index(run);
  for (const auto& f : run) {
    if (f.sdist) {
      if (format == "json")
        all.push_back(sdist_facts_to_json(f));
      else
        print_sdist_text(f, out);
      continue;
    }
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
  return cli::kExitPass;
}

const char* const kInspectFooter = R"(Examples:
  wheelcheck inspect dist/torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl
  wheelcheck inspect --format json dist/*.whl
  wheelcheck inspect dist/mypkg-1.0.tar.gz      # an sdist: PKG-INFO and which fields are Dynamic

Environment: the WHEELCHECK_HTTP_* variables and NETRC, as for check (see check --help).
Exit codes: 0 facts printed, 2 usage error or a wheel that cannot be opened.)";

}  // namespace wc
