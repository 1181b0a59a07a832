// WC514 on macOS: every symbol dyld binds for a Mach-O slice, against the image it binds in.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "facts/wheel_facts.h"
#include "policy/policy.h"
#include "rules/loader/install_set.h"
#include "rules/loader/symbol_binding.h"

namespace wc {

class FindingSink;

// Two-level imports (library ordinal N) bind in the image the N-th dylib load command resolves to
// (find_dylib), in its export trie or those of the dylibs it re-exports (LC_REEXPORT_DYLIB); a
// system dylib, or one found nowhere (WC503's), is not judged. Flat lookups (ordinal -2,
// `-undefined dynamic_lookup`) bind in any image of the process: the Python C API is the
// interpreter's, a C++ name of a namespace an image of the process defines must be defined there,
// the rest may come from a system library. Weak imports bind to null when missing; the main
// executable (the interpreter) and the image itself are not judged. A missing bind is an error
// whether lazy or not: Python's import and ctypes load with RTLD_NOW.
void macho_binds(const WheelFacts& f, const InstallSet& set, FindingSink& s);

// The same model, for inspect: per Mach-O binary (slices together).
std::vector<SymbolBinding> macho_symbol_bindings(const WheelFacts& f, const InstallSet& set, const Policy& p);

}  // namespace wc
