// How WC514's model binds each ELF binary's undefined symbols, for `inspect`: per binary, how many
// bound to which file of the install set, how many were taken on trust and why, and how many bind
// nowhere. The scope is the binary's own load (it opened alone, after the imports the policy
// names), as WC514 judges a library nothing else loads.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "facts/wheel_facts.h"
#include "policy/policy.h"
#include "rules/loader/install_set.h"

namespace wc {

struct SymbolBinding {
  std::string binary;                                   // archive entry name
  size_t undefined = 0;                                 // distinct undefined names
  std::vector<std::pair<std::string, size_t>> bound;    // the file ("torch/lib/libc10.so (torch 2.15.0)") -> names
  std::vector<std::pair<std::string, size_t>> trusted;  // why taken on trust -> names
  size_t unbound = 0;
  std::string not_judged;  // why the binary was not bound at all ("" when it was)
};

std::vector<SymbolBinding> symbol_bindings(const WheelFacts& f, const InstallSet& set, const Policy& p);

}  // namespace wc
