#include "binary/dynamic_symbols.h"

#include <unordered_map>

#include "util/budget.h"

namespace wc {

void DynamicSymbols::set_version(uint16_t index, Version v) {
  if (index >= versions_.size()) {
    // Indices come from the file (at most 0x7fff): what the table grows by is charged first.
    charge_memory((size_t(index) + 1 - versions_.size()) * (sizeof(Version) + 1), "ELF symbol version records");
    versions_.resize(size_t(index) + 1);
    have_version_.resize(size_t(index) + 1);
  }
  versions_[index] = v;
  have_version_[index] = true;
}

const DynamicSymbols::Version* DynamicSymbols::version(uint16_t index) const {
  return index < versions_.size() && have_version_[index] ? &versions_[index] : nullptr;
}

std::string_view DynamicSymbols::version_name(uint16_t index) const {
  const Version* v = version(index);
  return v ? text(v->name, v->name_len) : std::string_view();
}

std::string_view DynamicSymbols::version_file(uint16_t index) const {
  const Version* v = version(index);
  return v ? text(v->file, v->file_len) : std::string_view();
}

// FNV-1a, 64-bit: one pass over the name, no allocation; the same value probes every library.
uint64_t DynamicSymbols::hash(std::string_view name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h ^ (h >> 29);
}

void DynamicSymbols::keep_defined(const std::vector<bool>& keep) {
  size_t w = 0;
  for (size_t k = 0; k < defined_.size(); ++k)
    if (k < keep.size() && keep[k]) defined_[w++] = defined_[k];
  defined_.resize(w);
}

void DynamicSymbols::index() {
  // The tables are complete: a run holds them until its last wheel is judged, without the slack
  // their growth left (up to half of each).
  defined_.shrink_to_fit();
  undefined_.shrink_to_fit();
  size_t cap = 16;
  while (cap < defined_.size() * 2) cap <<= 1;
  table_.assign(cap, 0);
  next_.assign(defined_.size(), 0);
  size_t mask = cap - 1;
  // Definitions naming one string-table offset are one name: hashed and compared once (a table
  // whose every entry names one 8 MiB string costs one hash, not one per entry).
  std::unordered_map<uint32_t, size_t> slot_of;
  for (size_t k = 0; k < defined_.size(); ++k) {
    size_t i;
    if (auto it = slot_of.find(defined_[k].name); it != slot_of.end()) {
      i = it->second;
    } else {
      std::string_view n = name(defined_[k]);
      i = hash(n) & mask;
      while (table_[i] && name(defined_[table_[i] - 1]) != n) i = (i + 1) & mask;
      slot_of.emplace(defined_[k].name, i);
    }
    next_[k] = table_[i];  // 0, or the name's chain so far
    table_[i] = static_cast<uint32_t>(k + 1);
  }
}

size_t DynamicSymbols::bytes() const {
  return strings_.capacity() + (defined_.capacity() + undefined_.capacity()) * sizeof(Symbol) +
         versions_.capacity() * sizeof(Version) + (table_.capacity() + next_.capacity()) * sizeof(uint32_t);
}

}  // namespace wc
