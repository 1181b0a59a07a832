#include "facts/wheel_facts.h"

#include <algorithm>

#include "binary/binary_facts.h"
#include "wheel/entry_names.h"

namespace wc {

bool ProvenanceFacts::verified_any() const {
  return std::any_of(attestations.begin(), attestations.end(), [](const auto& a) { return a.result.verified; });
}

using nlohmann::json;

static const char* kind_name(EntryKind k) {
  switch (k) {
    case EntryKind::file: return "file";
    case EntryKind::directory: return "directory";
    case EntryKind::symlink: return "symlink";
    case EntryKind::other: return "other";
  }
  return "other";
}

static json problems_json(const std::vector<ZipProblem>& ps) {
  json a = json::array();
  for (const auto& p : ps) {
    json x = {{"message", p.message}, {"offset", p.offset}};
    if (!p.entry.empty()) x["entry"] = p.entry;
    a.push_back(x);
  }
  return a;
}

static json header_json(const HeaderFile& h) {
  json fields = json::array();
  for (const auto& [k, v] : h.fields) fields.push_back({k, v});
  json j = {{"fields", fields}};
  if (!h.problems.empty()) j["problems"] = h.problems;
  return j;
}

json sdist_facts_to_json(const WheelFacts& f) {
  const SdistFacts& sd = f.sdist_facts;
  json j = {{"kind", "sdist"},     {"path", f.path},        {"size", f.file_size},
            {"format", sd.format}, {"entries", sd.entries}, {"uncompressed", sd.uncompressed},
            {"top", sd.top}};
  if (!sd.sha256.empty()) j["sha256"] = sd.sha256;
  json problems = json::array();
  for (const auto& u : f.unreadable) problems.push_back({{"rule", "WC404"}, {"message", u.message}});
  for (const auto& p : sd.problems) problems.push_back({{"rule", p.rule}, {"message", p.message}, {"entry", p.entry}});
  j["problems"] = problems;
  if (!sd.pkg_info) {
    j["pkg_info"] = nullptr;
    j["pkg_info_problem"] = sd.pkg_info_problem;
    return j;
  }
  // Every field as written (repeated ones as lists), and the ones PEP 643 lets a build change.
  json fields = json::object();
  for (const auto& [k, v] : sd.pkg_info->fields) {
    if (!fields.contains(k))
      fields[k] = v;
    else if (fields[k].is_array())
      fields[k].push_back(v);
    else
      fields[k] = json::array({fields[k], v});
  }
  j["pkg_info"] = fields;
  j["dynamic"] = sd.pkg_info->get_all("Dynamic");
  return j;
}

json facts_to_json(const WheelFacts& f) {
  const WheelFilename& fn = f.filename;
  json name = {{"valid", fn.valid}};
  if (fn.valid) {
    name["name"] = fn.name;
    name["canonical_name"] = fn.canonical_name;
    name["version"] = fn.version ? fn.version->normalized() : fn.version_text;
    if (fn.build) name["build"] = fn.build->number + fn.build->suffix;
    if (fn.variant_label) name["variant_label"] = *fn.variant_label;
    json tags = json::array();
    for (const auto& t : fn.tags) tags.push_back(t.str());
    name["tags"] = tags;
  } else {
    name["error"] = fn.error;
  }
  json entries = json::array();
  for (const auto& e : f.entries) {
    json x = {{"name", e.name},
              {"kind", kind_name(e.kind)},
              {"size", e.size},
              {"compressed_size", e.compressed_size},
              {"method", e.method}};
    if (!e.sha256.empty()) x["sha256"] = e.sha256;
    if (e.kind == EntryKind::file)  // where pip and installer write it (install_map()'s key)
      if (auto t = install_target(e.name)) x["install_path"] = t->key();
    if (!e.read_error.empty()) x["read_error"] = e.read_error;
    if (!e.skipped.empty()) x["skipped"] = e.skipped;
    entries.push_back(x);
  }
  json j = {{"path", f.path},   {"size", f.file_size}, {"filename", name},
            {"zip64", f.zip64}, {"entries", entries},  {"dist_info", f.dist_info}};
  if (!f.unreadable.empty()) j["unreadable"] = problems_json(f.unreadable);
  if (!f.inconsistent.empty()) j["inconsistent"] = problems_json(f.inconsistent);
  if (!f.upload_refusals.empty()) j["upload_refusals"] = problems_json(f.upload_refusals);
  if (f.wheel_file) j["wheel"] = header_json(*f.wheel_file);
  if (f.metadata) {
    json m = header_json(*f.metadata);
    m["fields"].erase(
        std::remove_if(m["fields"].begin(), m["fields"].end(), [](const json& kv) { return kv[0] == "Description"; }),
        m["fields"].end());
    j["metadata"] = m;
  }
  if (f.record) j["record_rows"] = f.record->rows.size();
  if (f.variant) {
    const VariantDocument& d = *f.variant;
    json variants = json::object();
    for (const auto& [label, props] : d.variants)
      variants[label] = {{"properties", variant_property_strings(props)},
                         {"selects", describe_variant_selection(props)}};
    j["variant"] = {{"schema", d.schema_url}, {"namespace_priority", d.namespace_priority}, {"variants", variants}};
  }
  if (!f.sboms.empty()) {
    json docs = json::array();
    for (const auto& d : f.sboms) {
      json comps = json::array();
      for (size_t i = 0; i < d.components.size(); ++i) {
        const auto& c = d.components[i];
        json x = {{"name", c.name}, {"type", c.type}};
        if (!c.ref.empty()) x["ref"] = c.ref;
        if (!c.version.empty()) x["version"] = c.version;
        if (!c.purl.empty()) x["purl"] = c.purl;
        if (!c.cpes.empty()) x["cpe"] = c.cpes;
        if (!c.download_url.empty()) x["download_url"] = c.download_url;
        if (!c.locations.empty()) x["locations"] = c.locations;
        if (!c.contained.empty()) x["contained"] = c.contained;
        if (!c.hashes.empty()) {
          json hs = json::object();
          for (const auto& h : c.hashes) hs[h.algorithm] = h.hex;
          x["hashes"] = hs;
        }
        if (c.excluded) x["excluded"] = true;
        if (static_cast<int>(i) == d.primary) x["primary"] = true;
        comps.push_back(std::move(x));
      }
      json doc = {{"entry", d.entry}, {"format", d.format.empty() ? json(nullptr) : json(d.format)}};
      if (!d.spec_version.empty()) doc["spec_version"] = d.spec_version;
      if (!d.known_as.empty()) doc["known_as"] = d.known_as;
      if (!d.tools.empty()) doc["tools"] = d.tools;
      doc["components"] = comps;
      if (!d.errors.empty()) doc["errors"] = d.errors;
      if (!d.warnings.empty()) doc["warnings"] = d.warnings;
      docs.push_back(std::move(doc));
    }
    j["sboms"] = docs;
  }
  json bins = json::array();
  for (const auto& b : f.binaries) bins.push_back(binary_to_json(b));
  j["binaries"] = bins;
  if (f.reinflated_bytes) j["reinflated_bytes"] = f.reinflated_bytes;
  j["depth"] = f.metadata_depth ? "metadata" : "full";
  if (f.from_index_metadata) j["source"] = "index metadata (PEP 658)";
  j["bytes_read"] = f.bytes_read;
  return j;
}

namespace {

template <typename T>
void release(T& x) {
  T().swap(x);  // clear() would keep the capacity
}

}  // namespace

std::vector<std::shared_ptr<const DynamicSymbols>> slimmed_symbols(const WheelFacts& f) {
  std::vector<std::shared_ptr<const DynamicSymbols>> out(f.binaries.size());
  for (size_t k = 0; k < f.binaries.size(); ++k)
    if (f.binaries[k].symbols) out[k] = f.binaries[k].symbols->slimmed();
  return out;
}

void keep_for_install_sets(WheelFacts& f, std::vector<std::shared_ptr<const DynamicSymbols>> slimmed) {
  if (slimmed.size() != f.binaries.size()) slimmed = slimmed_symbols(f);
  for (auto& e : f.entries) {  // the names stay where they are: the entry index views them
    release(e.sha256);
    release(e.other_digests);
    release(e.read_error);
    release(e.skipped);
    release(e.version_strings);
  }
  release(f.inconsistent);
  release(f.methods);
  release(f.unsafe_names);
  release(f.upload_refusals);
  release(f.limit_events);
  f.wheel_file.reset();
  if (f.metadata) release(f.metadata->body);  // the description: no install-set rule reads it
  f.record.reset();
  release(f.dist_info_read_errors);
  release(f.captured);
  f.variant.reset();
  release(f.sboms);
  f.provenance = ProvenanceFacts{};
  for (size_t k = 0; k < f.binaries.size(); ++k) {
    BinaryFacts& b = f.binaries[k];
    // The install-set rules ask only whether a name is defined: the definitions' names go.
    b.symbols = std::move(slimmed[k]);
    for (auto& sl : b.slices) sl.hash_exports();  // Mach-O: whether a name is exported, by its hash
    b.fatbin = FatbinFacts{};
    b.hip = HipFacts{};
    release(b.cxx_abi);
    release(b.python_dll_imports);
  }
  release(f.sdist_facts.problems);
}

std::map<std::string, InstalledFile> install_map(const WheelFacts& f) {
  std::map<std::string, InstalledFile> out;
  const std::string record = f.dist_info.empty() ? "" : f.dist_info + "/RECORD";
  for (const auto& e : f.entries) {
    if (e.kind != EntryKind::file || e.name == record) continue;
    auto t = install_target(e.name);
    if (t) out[t->key()] = {e.name, e.sha256};
  }
  return out;
}

}  // namespace wc
