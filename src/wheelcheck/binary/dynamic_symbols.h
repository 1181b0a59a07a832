// An ELF binary's dynamic symbols as the loader binds them: what it exports (with the version each
// definition carries) and what it imports (with the version node it asks for), over one copy of
// its .dynstr. Names are offsets into that copy, never strings of their own; exports are found
// through an open-addressing hash table with one slot per distinct name (definitions of one name,
// sym@V1 and sym@@V2, chain from it), so a table naming one string a million times costs one probe.
// Once a wheel's own rules have run, a run keeps a slimmed copy for the install-set rules: the
// definitions by their names' hashes, not their names (a torch library's .dynstr is most of what it
// holds).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace wc {

class DynamicSymbols {
 public:
  struct Symbol {
    uint32_t name = 0, len = 0;  // in strings()
    uint16_t version = 0;        // .gnu.version index (0 local, 1 global/base, >= 2 a version record)
    bool hidden = false;         // a non-default definition (sym@VER): only versioned references bind it
  };
  // A version record: a definition's (file empty) or a need's (file: vn_file, the soname asked of).
  struct Version {
    uint32_t file = 0, file_len = 0, name = 0, name_len = 0;
    bool weak = false;  // VER_FLG_WEAK on a need: the loader does not insist on it
  };

  DynamicSymbols() = default;
  explicit DynamicSymbols(std::string strings) : strings_(std::move(strings)) {}

  const std::string& strings() const { return strings_; }
  std::string_view text(uint32_t off, uint32_t len) const { return std::string_view(strings_).substr(off, len); }
  std::string_view name(const Symbol& s) const { return text(s.name, s.len); }

  // Records, in .dynsym order. Versions are indexed by their .gnu.version index. defined() is empty
  // in a slimmed copy (definition_count() says how many it has).
  void add_defined(Symbol s) { defined_.push_back(s); }
  void add_undefined(Symbol s) { undefined_.push_back(s); }
  void set_version(uint16_t index, Version v);
  // Keeps the definitions whose flag is set (in add_defined order): the rest are unreachable.
  void keep_defined(const std::vector<bool>& keep);
  // Builds the lookup table; call once, after the last add_defined().
  void index();

  const std::vector<Symbol>& defined() const { return defined_; }
  size_t definition_count() const { return slim_ ? slim_defined_.size() : defined_.size(); }
  const std::vector<Symbol>& undefined() const { return undefined_; }
  // nullptr when the index names no record (0, 1, or one the file does not have).
  const Version* version(uint16_t index) const;
  std::string_view version_name(uint16_t index) const;
  std::string_view version_file(uint16_t index) const;
  size_t version_count() const { return versions_.size(); }  // indices 0 .. version_count() - 1
  bool versioned() const { return has_versions_; }           // the file has .gnu.version at all

  static uint64_t hash(std::string_view name);
  // Calls f(const Symbol&) for each definition of `name` (several: sym@V1, sym@@V2); f returns
  // true to stop. `h` is hash(name).
  template <typename F>
  void for_each_definition(std::string_view name, uint64_t h, F&& f) const {
    if (slim_) {
      // By hash and length: 64 bits of hash tell apart any names two real libraries hold.
      auto it = std::lower_bound(slim_defined_.begin(), slim_defined_.end(), h,
                                 [](const SlimDefinition& d, uint64_t v) { return d.hash < v; });
      for (; it != slim_defined_.end() && it->hash == h; ++it)
        if (it->len == name.size() && f(Symbol{0, it->len, it->version, it->hidden})) return;
      return;
    }
    if (table_.empty()) return;
    size_t mask = table_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      uint32_t slot = table_[i];
      if (slot == 0) return;
      if (this->name(defined_[slot - 1]) != name) continue;
      for (uint32_t k = slot; k; k = next_[k - 1])
        if (f(defined_[k - 1])) return;
      return;
    }
  }
  void set_versioned(bool v) { has_versions_ = v; }
  size_t bytes() const;  // what this holds in memory

  // The outermost namespaces the definitions' mangled names open (_ZN[rVKRO]*<len><id>...: "c10"
  // for libc10.so's), each once, sorted: WC514 asks whether a namespace belongs to a library.
  std::vector<std::string_view> defined_namespaces() const;
  // A copy for the install-set rules, which ask only whether a name is defined (for_each_definition),
  // what is imported and the versions: the imports' names, the version strings and the definitions'
  // namespaces are kept as text, each definition as its name's hash and length, its version and
  // whether it is hidden. Call after index().
  std::shared_ptr<const DynamicSymbols> slimmed() const;
  bool slim() const { return slim_; }
  // Every member, to a run's spill file and back (facts/spill.cc): a(member) for each, in one order.
  template <typename Archive>
  void transfer(Archive& a) {
    a(strings_, defined_, undefined_, versions_, have_version_, table_, next_, has_versions_, slim_defined_,
      slim_namespaces_, slim_);
  }

 private:
  std::string strings_;
  std::vector<Symbol> defined_, undefined_;
  std::vector<Version> versions_;  // by .gnu.version index
  std::vector<bool> have_version_;
  std::vector<uint32_t> table_;  // defined_ index + 1 of a name's first definition; 0 empty; a power of two
  std::vector<uint32_t> next_;   // per definition: the next one of the same name (index + 1), 0 at the end
  bool has_versions_ = false;
  // A slimmed copy's definitions, sorted by hash (same-name definitions in .dynsym order), and the
  // namespaces they open (views of strings_).
  struct SlimDefinition {
    uint64_t hash = 0;
    uint32_t len = 0;
    uint16_t version = 0;
    bool hidden = false;
  };
  std::vector<SlimDefinition> slim_defined_;
  std::vector<std::pair<uint32_t, uint32_t>> slim_namespaces_;  // (offset, length) in strings_
  bool slim_ = false;
};

}  // namespace wc
