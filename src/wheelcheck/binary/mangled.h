// Itanium C++ mangled names, read without a demangler: which libstdc++ string/list ABI a symbol
// uses and which namespaces it names (PyTorch's C++11-ABI release check, WC512).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace wc {

struct MangledAbi {
  bool cxx11 = false;      // std::__cxx11::basic_string or std::__cxx11::list
  bool pre_cxx11 = false;  // std::basic_string (Ss, Sb, St12basic_string) or std::list outside __cxx11
  // Outermost component of each nested name in the symbol (c10 for c10::TensorImpl, at for
  // at::native::add), each once; std and substitutions are not namespaces here.
  std::vector<std::string_view> namespaces;  // at most kMaxNamespaces (real symbols name a few)
  static constexpr size_t kMaxNamespaces = 32;
};

// The source names are walked as length-prefixed tokens, so an identifier that happens to
// contain "Ss" or "4list" is never mistaken for a type. Names that are not _Z-mangled give {}.
MangledAbi classify_mangled(std::string_view symbol);

// Per outermost namespace: how many symbols use each string/list ABI, with a few pre-C++11 names.
struct CxxAbiCount {
  uint64_t cxx11 = 0, pre_cxx11 = 0;
  std::vector<std::string> pre_examples;  // at most kMaxExamples
  static constexpr size_t kMaxExamples = 5;
  static constexpr size_t kMaxExampleBytes = 512;  // a name is clipped there (a hostile one can be megabytes)
};
using CxxAbiCounts = std::map<std::string, CxxAbiCount, std::less<>>;

// The readable form of an Itanium mangled name (libstdc++'s own demangler, in process), or "" for a
// name that is not one or is over 2 KiB.
std::string demangle_for_display(std::string_view mangled);

// Adds one symbol to `counts` (only symbols that use either ABI and name a namespace count).
void count_cxx_abi(std::string_view symbol, CxxAbiCounts& counts);

}  // namespace wc
