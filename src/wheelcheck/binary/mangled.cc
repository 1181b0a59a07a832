#include "binary/mangled.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "util/parse.h"

namespace wc {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
bool seq_char(char c) { return digit(c) || (c >= 'A' && c <= 'Z'); }

}  // namespace

MangledAbi classify_mangled(std::string_view s) {
  MangledAbi out;
  if (!s.starts_with("_Z")) return out;
  // A clone or versioned suffix (".constprop.0", "@@GLIBCXX_3.4") is not part of the encoding.
  s = s.substr(0, std::min(s.find('.'), s.find('@')));
  size_t i = 2, n = s.size();
  bool nested_start = false;  // the next source name opens a nested name (after N and its qualifiers)
  bool after_std = false;     // the previous token was St (std::)
  bool std_cxx11 = false;     // ... followed by 7__cxx11
  auto skip_to_underscore = [&](size_t from) {
    size_t u = s.find('_', from);
    return u == std::string_view::npos ? n : u + 1;
  };
  while (i < n) {
    char c = s[i];
    if (digit(c)) {  // <source-name> ::= <length> <identifier>
      std::string_view rest = s.substr(i);
      uint64_t len = 0;
      if (!consume_number(rest, n, len) || len > rest.size()) break;  // malformed: the length runs past the name
      std::string_view id = rest.substr(0, size_t(len));
      i = n - rest.size() + size_t(len);
      if (after_std) {
        if (id == "__cxx11" && !std_cxx11) {
          std_cxx11 = true;
          continue;  // std::__cxx11:: — the next name decides
        }
        // PyTorch's patterns: "std::__cxx11::basic_string" (so basic_stringstream and basic_stringbuf
        // count too) and "std::__cxx11::list"; before C++11, "std::basic_string<" and "std::list".
        if (std_cxx11 ? (id.starts_with("basic_string") || id == "list") : (id == "basic_string" || id == "list"))
          (std_cxx11 ? out.cxx11 : out.pre_cxx11) = true;
        after_std = std_cxx11 = false;
        nested_start = false;
        continue;
      }
      // At most kMaxNamespaces, each once: a hostile name of 100,000 nested names would make the
      // lookup quadratic and every counter below hold the name once per namespace.
      if (nested_start && out.namespaces.size() < MangledAbi::kMaxNamespaces &&
          std::find(out.namespaces.begin(), out.namespaces.end(), id) == out.namespaces.end())
        out.namespaces.push_back(id);
      nested_start = false;
      continue;
    }
    after_std = std_cxx11 = false;
    char next = i + 1 < n ? s[i + 1] : '\0';
    switch (c) {
      case 'N':  // nested name, then CV and ref qualifiers
        ++i;
        while (i < n && (s[i] == 'r' || s[i] == 'V' || s[i] == 'K' || s[i] == 'R' || s[i] == 'O')) ++i;
        nested_start = true;
        continue;
      case 'S':
        if (next == 't') {
          after_std = true;
          i += 2;
        } else if (next == 's' || next == 'b') {  // std::string, std::basic_string: the old ABI's
          out.pre_cxx11 = true;
          i += 2;
        } else if (next == 'a' || next == 'i' || next == 'o' || next == 'd') {
          i += 2;
        } else if (next == '_' || seq_char(next)) {  // substitution S_, S0_, SA_
          i = skip_to_underscore(i + 1);
        } else {
          i += 1;
        }
        nested_start = false;
        continue;
      case 'T':  // template parameter T_, T0_; special names (TV, TI, TS, Th, Tv) are two letters
        i = (next == '_' || digit(next)) ? skip_to_underscore(i + 1) : i + 2;
        continue;
      case 'L':  // literal: L <type> <value> E, or L_Z <encoding> E
        if (next == '_' && i + 2 < n && s[i + 2] == 'Z') {
          i += 3;
        } else {
          size_t e = s.find('E', i + 2);
          i = e == std::string_view::npos ? n : e + 1;
        }
        continue;
      case 'A':  // array type A <dimension> _
        i = digit(next) ? skip_to_underscore(i + 1) : i + 1;
        continue;
      case 'D':  // Dv <dimension> _ (vector types); other D-types are two letters
        i = next == 'v' ? skip_to_underscore(i + 2) : i + 2;
        continue;
      case 'f':  // function parameters fp_, fp0_, fL0p_
        i = (next == 'p' || next == 'L') ? skip_to_underscore(i + 2) : i + 1;
        continue;
      case 'C':  // constructors C1..C5, inheriting constructors CI1/CI2 <base type>
        i += next == 'I' ? 3 : 2;
        nested_start = false;
        continue;
      case 'B':  // ABI tag B <source-name>: a tag, not a namespace
        ++i;
        nested_start = false;
        continue;
      default:
        ++i;
        if (c != 'r' && c != 'V' && c != 'K') nested_start = false;
        continue;
    }
  }
  return out;
}

void count_cxx_abi(std::string_view symbol, CxxAbiCounts& counts) {
  if (!symbol.starts_with("_Z")) return;
  MangledAbi m = classify_mangled(symbol);
  if (!m.cxx11 && !m.pre_cxx11) return;
  for (std::string_view ns : m.namespaces) {
    auto it = counts.find(ns);
    if (it == counts.end()) it = counts.emplace(std::string(ns), CxxAbiCount{}).first;
    CxxAbiCount& c = it->second;
    if (m.cxx11) ++c.cxx11;
    if (m.pre_cxx11) {
      ++c.pre_cxx11;
      if (c.pre_examples.size() < CxxAbiCount::kMaxExamples)
        c.pre_examples.emplace_back(symbol.substr(0, CxxAbiCount::kMaxExampleBytes));
    }
  }
}

std::string demangle_for_display(std::string_view mangled) {
  if (!mangled.starts_with("_Z") || mangled.size() > 2048) return "";
  int status = 0;
  char* out = abi::__cxa_demangle(std::string(mangled).c_str(), nullptr, nullptr, &status);
  std::string s = status == 0 && out ? out : "";
  std::free(out);
  return s;
}

}  // namespace wc
