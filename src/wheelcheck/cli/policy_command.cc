// `wheelcheck policy`: validate policy files, show one merged, list the shipped ones, print the schema.
#include <fstream>
#include <iostream>

#include "cli/commands.h"

namespace wc {
namespace {

int run_policy_validate(const std::vector<std::string>& files) {
  int rc = cli::kExitPass;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::cerr << file << ": cannot read\n";
      rc = cli::kExitUsage;
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
    rc = cli::kExitUsage;
  }
  return rc;
}

}  // namespace

int run_policy(const PolicyArgs& a) {
  if (a.verb == "validate") return run_policy_validate(a.files);
  if (a.verb == "show") {
    std::cout << load_policy(a.spec).document.dump(2) << "\n";
    return cli::kExitPass;
  }
  if (a.verb == "list") {
    for (const auto& n : shipped_policy_names()) std::cout << n << "\n";
    for (const auto& [n, file] : installed_policies()) std::cout << n << "  (" << file << ")\n";
    return cli::kExitPass;
  }
  std::cout << policy_schema_text();
  return cli::kExitPass;
}

}  // namespace wc
