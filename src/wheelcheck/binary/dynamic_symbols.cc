#include "binary/dynamic_symbols.h"

#include "util/budget.h"
#include "util/hash.h"
#include "util/parse.h"
#include "util/u32_map.h"

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

// One pass over the name, no allocation (util/hash.h); the same value probes every library.
uint64_t DynamicSymbols::hash(std::string_view name) { return hash_bytes(name); }

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
  U32Map<size_t> slot_of;
  for (size_t k = 0; k < defined_.size(); ++k) {
    size_t i;
    if (const size_t* at = slot_of.find(defined_[k].name)) {
      i = *at;
    } else {
      std::string_view n = name(defined_[k]);
      i = hash(n) & mask;
      while (table_[i] && name(defined_[table_[i] - 1]) != n) i = (i + 1) & mask;
      slot_of.try_emplace(defined_[k].name, i);
    }
    next_[k] = table_[i];  // 0, or the name's chain so far
    table_[i] = static_cast<uint32_t>(k + 1);
  }
}

size_t DynamicSymbols::bytes() const {
  return strings_.capacity() + (defined_.capacity() + undefined_.capacity()) * sizeof(Symbol) +
         versions_.capacity() * sizeof(Version) + (table_.capacity() + next_.capacity()) * sizeof(uint32_t) +
         slim_defined_.capacity() * sizeof(SlimDefinition) +
         slim_namespaces_.capacity() * sizeof(std::pair<uint32_t, uint32_t>);
}

namespace {

// "c10" from _ZN3c106detail...; empty when the name opens no namespace.
std::string_view outer_namespace(std::string_view n) {
  if (!n.starts_with("_ZN")) return {};
  n.remove_prefix(3);
  while (!n.empty() && std::string_view("rVKRO").find(n[0]) != std::string_view::npos) n.remove_prefix(1);
  uint64_t len = 0;
  if (!consume_number(n, n.size(), len) || len == 0 || len > n.size()) return {};
  return n.substr(0, len);
}

}  // namespace

std::vector<std::string_view> DynamicSymbols::defined_namespaces() const {
  std::vector<std::string_view> out;
  if (slim_) {
    out.reserve(slim_namespaces_.size());
    for (auto [off, len] : slim_namespaces_) out.push_back(text(off, len));
    return out;
  }
  // Definitions naming one string-table offset open one namespace: each offset is parsed once.
  U32Map<char> seen;
  for (const auto& def : defined_) {
    if (!seen.insert(def.name)) continue;
    // Neighbouring definitions mostly open the same namespace: each run is one element to sort.
    if (std::string_view ns = outer_namespace(name(def)); !ns.empty() && (out.empty() || out.back() != ns))
      out.push_back(ns);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::shared_ptr<const DynamicSymbols> DynamicSymbols::slimmed() const {
  if (slim_) return std::make_shared<DynamicSymbols>(*this);
  auto out = std::make_shared<DynamicSymbols>();
  DynamicSymbols& d = *out;
  d.slim_ = true;
  d.has_versions_ = has_versions_;
  // Each string-table offset copied once (a table may name one long string many times).
  U32Map<uint32_t> moved;
  auto keep = [&](uint32_t off, uint32_t len) -> uint32_t {
    if (len == 0) return 0;
    auto [at, fresh] = moved.try_emplace(off, 0);
    if (fresh) {
      *at = static_cast<uint32_t>(d.strings_.size());
      d.strings_.append(text(off, len));
    }
    return *at;
  };
  d.undefined_.reserve(undefined_.size());
  for (Symbol s : undefined_) {
    s.name = keep(s.name, s.len);
    d.undefined_.push_back(s);
  }
  d.versions_ = versions_;
  d.have_version_ = have_version_;
  for (auto& v : d.versions_) {
    v.file = keep(v.file, v.file_len);
    v.name = keep(v.name, v.name_len);
  }
  for (std::string_view ns : defined_namespaces()) {
    auto off = static_cast<uint32_t>(d.strings_.size());
    d.strings_.append(ns);
    d.slim_namespaces_.emplace_back(off, static_cast<uint32_t>(ns.size()));
  }
  d.strings_.shrink_to_fit();
  // Names hashed once per string-table offset, like index().
  U32Map<uint64_t> hashed;
  d.slim_defined_.reserve(defined_.size());
  for (const auto& def : defined_) {
    auto [at, fresh] = hashed.try_emplace(def.name, 0);
    if (fresh) *at = hash(name(def));
    d.slim_defined_.push_back({*at, def.len, def.version, def.hidden});
  }
  std::stable_sort(d.slim_defined_.begin(), d.slim_defined_.end(),
                   [](const SlimDefinition& a, const SlimDefinition& b) { return a.hash < b.hash; });
  return out;
}

}  // namespace wc
