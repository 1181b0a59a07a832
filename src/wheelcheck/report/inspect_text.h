// `wheelcheck inspect`'s text: the facts of one wheel as a release engineer reads them (JSON is
// facts_to_json's).
#pragma once

#include <ostream>
#include <vector>

#include "facts/cuda_facts.h"
#include "facts/wheel_facts.h"
#include "policy/policy.h"
#include "rules/loader/symbol_binding.h"
#include "rules/metadata/platform_tag.h"

namespace wc {

void print_inspect_text(const WheelFacts& f, const CudaFacts& cuda, const JustifiedTag& justified, const Policy& policy,
                        const std::vector<SymbolBinding>& bindings, std::ostream& out);
// An sdist: its container, PKG-INFO's identity and requirements, which fields are Dynamic (PEP 643:
// a build may change them; the others every wheel built from it must match), what is wrong.
void print_sdist_text(const WheelFacts& f, std::ostream& out);

}  // namespace wc
