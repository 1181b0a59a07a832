#include "wheel/sbom.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "util/json_text.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

using json = nlohmann::json;

struct TooMany : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const json* member(const json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

std::string str(const json& o, const char* key) {
  const json* v = member(o, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

// "SHA-256" -> "sha256", "SHA3-256" -> "sha3-256", "BLAKE2b-256" -> "blake2b-256".
std::string hash_algorithm(std::string_view a) {
  std::string s = to_lower(a);
  if (s.starts_with("sha-")) s.erase(3, 1);
  return s;
}

bool is_hex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

// Archive paths as documents write them: "./pkg/x.so" or "pkg/x.so" (the leading "./" dropped). A
// leading "/" stays: "/usr/lib/x.so" is a path on the build machine, not in the archive.
std::string archive_path(std::string_view p) {
  while (p.starts_with("./")) p.remove_prefix(2);
  return std::string(p);
}

// Everything shared by the three readers: the document, its components by reference, the limits.
class Reader {
 public:
  Reader(SbomDocument& d, const SbomLimits& l) : d_(d), limits_(l) {}

  void error(std::string m) {
    if (d_.errors.size() < kMaxMessages)
      d_.errors.push_back(std::move(m));
    else if (d_.errors.size() == kMaxMessages)
      d_.errors.push_back("... and more problems not listed");
  }
  void warning(std::string m) {
    if (d_.warnings.size() < kMaxMessages) d_.warnings.push_back(std::move(m));
  }

  // Adds a component (or returns the one already known by that reference).
  size_t add(SbomComponent c) {
    if (!c.ref.empty()) {
      auto it = by_ref_.find(c.ref);
      if (it != by_ref_.end()) {
        // A reference names one element (SPDXID, bom-ref): another element under it is not read.
        // The same element again (auditwheel repeats the primary component in components[]) is
        // no other element.
        const SbomComponent& first = d_.components[it->second];
        if (c.name != first.name || c.version != first.version || c.locations != first.locations ||
            c.is_file != first.is_file) {
          reused_.insert(c.ref);
          ++reuses_;
        }
        return it->second;
      }
    }
    if (d_.components.size() >= limits_.max_components)
      throw TooMany("more than " + std::to_string(limits_.max_components) + " components and files");
    d_.components.push_back(std::move(c));
    size_t i = d_.components.size() - 1;
    if (!d_.components[i].ref.empty()) by_ref_.emplace(d_.components[i].ref, i);
    return i;
  }
  // A reference that names no component but something else the document declares (a tool's
  // bom-ref): relationships to it are not dangling, and not software in the wheel.
  void known(const std::string& ref) { other_refs_.insert(ref); }
  bool is_known(const std::string& ref) const { return other_refs_.count(ref) > 0; }
  std::optional<size_t> find(const std::string& ref) const {
    auto it = by_ref_.find(ref);
    if (it == by_ref_.end()) return std::nullopt;
    return it->second;
  }
  void edge(size_t from, size_t to) {
    if (d_.edges.size() >= limits_.max_relationships)
      throw TooMany("more than " + std::to_string(limits_.max_relationships) + " relationships");
    d_.edges.emplace_back(from, to);
  }
  // A reference that names nothing in the document: counted, said once.
  void dangling(const std::string& where, const std::string& ref) {
    // "DocumentRef-other:SPDXRef-x" names an element of another document (SPDX 2 externalDocumentRefs).
    if (is_known(ref) || ref.starts_with("DocumentRef-")) return;
    if (dangling_++ == 0) warning(where + ": '" + clip_for_display(ref, 80) + "' names no element of the document");
  }
  void finish() {
    if (dangling_ > 1) warning(std::to_string(dangling_) + " references in all name no element of the document");
    if (reuses_)
      warning(std::to_string(reuses_) + (reuses_ == 1 ? " element reuses" : " elements reuse") +
              " the reference of an element before it (" +
              join_shown(std::vector<std::string>(reused_.begin(), reused_.end()), 3) +
              "): a reference names one element, so only the first is read");
    // Paths and hashes once each (hasFiles and CONTAINS may both name a file; one hash per algorithm),
    // so what compares them is linear in the document.
    for (auto& c : d_.components) {
      for (auto* v : {&c.locations, &c.contained}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
      }
      std::set<std::string> algorithms;
      std::erase_if(c.hashes, [&](const SbomHash& h) { return !algorithms.insert(h.algorithm).second; });
    }
  }
  // Component `from` holds the file element `to`: its path among from's contained paths.
  void holds(size_t from, size_t to) {
    const SbomComponent& t = d_.components[to];
    if (t.is_file && from != to)
      for (const auto& l : t.locations) d_.components[from].contained.push_back(l);
  }

  // Type checks that name the JSON pointer: the member `key` of `o` when it has the type, else null
  // (and an error when it is there with another type, or missing and required).
  const json* want(const json& o, const char* key, const std::string& at, bool required, json::value_t type) {
    const json* v = member(o, key);
    if (!v) {
      if (required) error(at + ": required field '" + key + "' is missing");
      return nullptr;
    }
    if (v->type() != type) {
      const char* word = type == json::value_t::string  ? "a string"
                         : type == json::value_t::array ? "an array"
                                                        : "an object";
      error(at + "/" + key + ": must be " + word + ", not " + v->type_name());
      return nullptr;
    }
    return v;
  }
  bool want_string(const json& o, const char* key, const std::string& at, bool required) {
    return want(o, key, at, required, json::value_t::string) != nullptr;
  }
  const json* want_array(const json& o, const char* key, const std::string& at, bool required) {
    return want(o, key, at, required, json::value_t::array);
  }
  const json* want_object(const json& o, const char* key, const std::string& at, bool required) {
    return want(o, key, at, required, json::value_t::object);
  }

  SbomDocument& d_;
  const SbomLimits& limits_;

 private:
  static constexpr size_t kMaxMessages = 20;
  std::unordered_map<std::string, size_t> by_ref_;
  std::set<std::string> other_refs_;
  size_t dangling_ = 0;
  std::set<std::string> reused_;  // references a later, different element reuses
  size_t reuses_ = 0;
};

// --- CycloneDX JSON ---------------------------------------------------------------------------

const char* const kCdxTypes[] = {"application",
                                 "framework",
                                 "library",
                                 "container",
                                 "platform",
                                 "operating-system",
                                 "device",
                                 "device-driver",
                                 "firmware",
                                 "file",
                                 "machine-learning-model",
                                 "data",
                                 "cryptographic-asset"};

const char* const kCdxHashAlgorithms[] = {"MD5",         "SHA-1",    "SHA-256",      "SHA-384",     "SHA-512",
                                          "SHA3-256",    "SHA3-384", "SHA3-512",     "BLAKE2b-256", "BLAKE2b-384",
                                          "BLAKE2b-512", "BLAKE3",   "Streebog-256", "Streebog-512"};

// The digest length each algorithm gives (BLAKE3's is chosen by the writer: any length the schema allows).
size_t cdx_digest_digits(std::string_view alg) {
  if (alg == "MD5") return 32;
  if (alg == "SHA-1") return 40;
  if (alg == "SHA-256" || alg == "SHA3-256" || alg == "BLAKE2b-256" || alg == "Streebog-256") return 64;
  if (alg == "SHA-384" || alg == "SHA3-384" || alg == "BLAKE2b-384") return 96;
  if (alg == "SHA-512" || alg == "SHA3-512" || alg == "BLAKE2b-512" || alg == "Streebog-512") return 128;
  return 0;
}

// Reads the version; true when it is newer than 1.7 (its new enumeration values are not errors).
bool cdx_version(const std::string& v, Reader& r) {
  auto parts = split(v, '.');
  auto major = parts.size() == 2 ? parse_decimal(parts[0], 99) : std::nullopt;
  auto minor = parts.size() == 2 ? parse_decimal(parts[1], 999) : std::nullopt;
  if (!major || !minor) {
    r.error("/specVersion: '" + clip_for_display(v, 40) + "' is not a version like 1.6");
    return false;
  }
  if (*major == 1 && *minor < 2)
    r.error("/specVersion: CycloneDX " + v + " has no JSON form (JSON begins with 1.2)");
  else if (*major == 1 && *minor < 4)
    r.warning("CycloneDX " + v + " predates the versions read here (1.4 to 1.7); read as 1.4");
  else if (*major > 1 || *minor > 7) {
    r.warning("CycloneDX " + v + " is newer than the versions known here (1.4 to 1.7); read by 1.7's fields");
    return true;
  }
  return false;
}

class CycloneDx {
 public:
  explicit CycloneDx(Reader& r) : r_(r) {}

  void run(const json& doc) {
    SbomDocument& d = r_.d_;
    d.format = "CycloneDX";
    if (r_.want_string(doc, "specVersion", "", true)) {
      d.spec_version = doc["specVersion"].get<std::string>();
      newer_ = cdx_version(d.spec_version, r_);
    }
    // The BOM's version is optional in every schema from 1.4 on (required: bomFormat, specVersion);
    // an integer of at least 1 when given.
    if (const json* v = member(doc, "version"))
      if (!v->is_number_integer() || v->get<long long>() < 1) r_.error("/version: must be an integer of at least 1");
    if (r_.want_string(doc, "serialNumber", "", false)) {
      d.serial = doc["serialNumber"].get<std::string>();
      if (!d.serial.starts_with("urn:uuid:") || d.serial.size() != 45)
        r_.error("/serialNumber: '" + clip_for_display(d.serial, 60) + "' is not urn:uuid:<RFC 4122 UUID>");
    }
    if (const json* m = r_.want_object(doc, "metadata", "", false)) metadata(*m);
    if (const json* ss = r_.want_array(doc, "services", "", false)) services(*ss, 0);
    if (const json* cs = r_.want_array(doc, "components", "", false))
      for (size_t i = 0; i < cs->size(); ++i) component((*cs)[i], "/components/" + std::to_string(i), std::nullopt);
    if (const json* deps = r_.want_array(doc, "dependencies", "", false)) dependencies(*deps);
  }

 private:
  // Services are not software in the wheel, but dependencies may name them.
  void services(const json& ss, unsigned depth) {
    for (const auto& x : ss) {
      if (std::string ref = str(x, "bom-ref"); !ref.empty()) r_.known(ref);
      if (const json* nested = member(x, "services"); nested && nested->is_array() && depth < 8)
        services(*nested, depth + 1);
    }
  }

  // A value 1.7 does not list: an error in the versions known, a warning in a newer one.
  void not_listed(const std::string& m) { newer_ ? r_.warning(m + " (in 1.7)") : r_.error(m); }

  void metadata(const json& m) {
    SbomDocument& d = r_.d_;
    if (r_.want_string(m, "timestamp", "/metadata", false)) d.has_created = true;
    if (const json* t = member(m, "tools")) {
      // 1.4: an array of tools; 1.5 on: {components, services} (the array form deprecated).
      auto tool_list = [&](const json& a, const std::string& at) {
        if (!a.is_array()) return r_.error(at + ": must be an array");
        for (size_t i = 0; i < a.size(); ++i) {
          if (!a[i].is_object()) {
            r_.error(at + "/" + std::to_string(i) + ": must be an object");
            continue;
          }
          std::string name = str(a[i], "name"), version = str(a[i], "version");
          if (std::string ref = str(a[i], "bom-ref"); !ref.empty()) r_.known(ref);
          if (!name.empty()) d.tools.push_back(version.empty() ? name : name + " " + version);
        }
      };
      if (t->is_array()) {
        tool_list(*t, "/metadata/tools");
      } else if (t->is_object() && d.spec_version == "1.4") {
        r_.error("/metadata/tools: must be an array in CycloneDX 1.4 (the object form begins with 1.5)");
      } else if (t->is_object()) {
        if (const json* c = member(*t, "components")) tool_list(*c, "/metadata/tools/components");
        if (const json* s = member(*t, "services")) tool_list(*s, "/metadata/tools/services");
      } else {
        r_.error("/metadata/tools: must be an array or an object");
      }
      d.has_tool = !d.tools.empty();
    }
    if (const json* c = r_.want_object(m, "component", "/metadata", false))
      d.primary = static_cast<int>(component(*c, "/metadata/component", std::nullopt));
  }

  size_t component(const json& c, const std::string& at, std::optional<size_t> parent) {
    SbomComponent out;
    if (!c.is_object()) {
      r_.error(at + ": must be an object");
      return SIZE_MAX;
    }
    if (r_.want_string(c, "type", at, true)) {
      out.type = c["type"].get<std::string>();
      if (std::find(std::begin(kCdxTypes), std::end(kCdxTypes), out.type) == std::end(kCdxTypes))
        not_listed(at + "/type: '" + clip_for_display(out.type, 40) + "' is not a CycloneDX component type");
    }
    if (r_.want_string(c, "name", at, true)) out.name = c["name"].get<std::string>();
    if (r_.want_string(c, "bom-ref", at, false)) out.ref = c["bom-ref"].get<std::string>();
    if (r_.want_string(c, "version", at, false)) out.version = c["version"].get<std::string>();
    if (r_.want_string(c, "purl", at, false)) out.purl = c["purl"].get<std::string>();
    if (r_.want_string(c, "cpe", at, false)) out.cpes.push_back(c["cpe"].get<std::string>());
    if (r_.want_string(c, "scope", at, false)) {
      std::string scope = c["scope"].get<std::string>();
      if (scope != "required" && scope != "optional" && scope != "excluded")
        r_.error(at + "/scope: '" + clip_for_display(scope, 40) + "' is not required, optional or excluded");
      out.excluded = scope == "excluded";
    }
    out.is_file = out.type == "file";
    if (const json* hs = r_.want_array(c, "hashes", at, false))
      for (size_t i = 0; i < hs->size(); ++i) {
        const json& h = (*hs)[i];
        std::string hat = at + "/hashes/" + std::to_string(i);
        bool ok = r_.want_string(h, "alg", hat, true);
        ok = r_.want_string(h, "content", hat, true) && ok;
        if (!ok) continue;
        std::string alg = h["alg"].get<std::string>(), hex = h["content"].get<std::string>();
        if (std::find(std::begin(kCdxHashAlgorithms), std::end(kCdxHashAlgorithms), alg) ==
            std::end(kCdxHashAlgorithms)) {
          not_listed(hat + "/alg: '" + clip_for_display(alg, 40) + "' is not a CycloneDX hash algorithm");
          continue;
        }
        const size_t n = hex.size();
        if (!is_hex(hex) || (n != 32 && n != 40 && n != 64 && n != 96 && n != 128)) {
          r_.error(hat + "/content: not a hexadecimal digest of 32, 40, 64, 96 or 128 digits");
          continue;
        }
        // The schema allows any of those lengths for any algorithm; a SHA-256 of 40 digits is none.
        if (size_t want = cdx_digest_digits(alg); want && n != want) {
          r_.warning(hat + "/content: " + std::to_string(n) + " digits, but " + alg + " gives " + std::to_string(want) +
                     "; not compared");
          continue;
        }
        out.hashes.push_back({hash_algorithm(alg), to_lower(hex)});
      }
    if (const json* refs = r_.want_array(c, "externalReferences", at, false))
      for (const auto& e : *refs) {
        std::string type = str(e, "type");
        if ((type == "distribution" || type == "distribution-intake") && out.download_url.empty())
          out.download_url = str(e, "url");
      }
    if (const json* ev = r_.want_object(c, "evidence", at, false))
      if (const json* occ = r_.want_array(*ev, "occurrences", at + "/evidence", false))
        for (size_t i = 0; i < occ->size(); ++i)
          if (r_.want_string((*occ)[i], "location", at + "/evidence/occurrences/" + std::to_string(i), true))
            out.locations.push_back(archive_path((*occ)[i]["location"].get<std::string>()));
    if (out.is_file && out.locations.empty() && !out.name.empty()) out.locations.push_back(archive_path(out.name));
    if (parent) out.parent = static_cast<int>(*parent);
    size_t self = r_.add(std::move(out));
    if (parent) r_.edge(*parent, self);
    if (const json* nested = r_.want_array(c, "components", at, false))
      for (size_t i = 0; i < nested->size(); ++i) {
        size_t child = component((*nested)[i], at + "/components/" + std::to_string(i), self);
        if (child != SIZE_MAX) r_.holds(self, child);
      }
    return self;
  }

  void dependencies(const json& deps) {
    for (size_t i = 0; i < deps.size(); ++i) {
      const json& dep = deps[i];
      std::string at = "/dependencies/" + std::to_string(i);
      if (!dep.is_object()) {
        r_.error(at + ": must be an object");
        continue;
      }
      if (!r_.want_string(dep, "ref", at, true)) continue;
      std::string ref = dep["ref"].get<std::string>();
      auto from = r_.find(ref);
      if (!from) r_.dangling(at + "/ref", ref);
      if (const json* on = r_.want_array(dep, "dependsOn", at, false))
        for (size_t k = 0; k < on->size(); ++k) {
          if (!(*on)[k].is_string()) {
            r_.error(at + "/dependsOn/" + std::to_string(k) + ": must be a string");
            continue;
          }
          auto to = r_.find((*on)[k].get<std::string>());
          if (!to) r_.dangling(at + "/dependsOn/" + std::to_string(k), (*on)[k].get<std::string>());
          if (from && to) r_.edge(*from, *to);
        }
    }
  }

  Reader& r_;
  bool newer_ = false;
};

// --- SPDX 2.2 / 2.3 JSON ----------------------------------------------------------------------

bool spdx_noassertion(const std::string& s) { return s.empty() || s == "NONE" || s == "NOASSERTION"; }

// SPDX relationship types that point from the related element to the subject ("A CONTAINED_BY B":
// B contains A).
bool spdx_reversed(std::string_view type) {
  return type.ends_with("_OF") || type.ends_with("_BY") || type.ends_with("_FOR") || type == "GENERATED_FROM";
}

class Spdx2 {
 public:
  explicit Spdx2(Reader& r) : r_(r) {}

  void run(const json& doc) {
    SbomDocument& d = r_.d_;
    d.format = "SPDX";
    if (r_.want_string(doc, "spdxVersion", "", true)) {
      std::string v = doc["spdxVersion"].get<std::string>();
      d.spec_version = v.starts_with("SPDX-") ? v.substr(5) : v;
      if (d.spec_version != "2.2" && d.spec_version != "2.3") {
        if (d.spec_version.starts_with("2."))
          r_.warning("SPDX " + d.spec_version + " is not one of the versions read here (2.2, 2.3); read as 2.3");
        else
          r_.error("/spdxVersion: '" + clip_for_display(v, 40) + "' is not an SPDX 2 version (SPDX-2.3)");
      }
    }
    for (const char* key : {"SPDXID", "name", "dataLicense", "documentNamespace"}) r_.want_string(doc, key, "", true);
    if (const json* ci = r_.want_object(doc, "creationInfo", "", true)) {
      d.has_created = r_.want_string(*ci, "created", "/creationInfo", true);
      if (const json* creators = r_.want_array(*ci, "creators", "/creationInfo", true))
        for (const auto& c : *creators) {
          if (!c.is_string()) {
            r_.error("/creationInfo/creators: every creator must be a string");
            continue;
          }
          std::string s = c.get<std::string>();
          if (s.starts_with("Tool:")) d.tools.push_back(std::string(trim(std::string_view(s).substr(5))));
        }
      d.has_tool = !d.tools.empty();
    }
    if (const json* ps = r_.want_array(doc, "packages", "", false))
      for (size_t i = 0; i < ps->size(); ++i) package((*ps)[i], "/packages/" + std::to_string(i));
    if (const json* fs = r_.want_array(doc, "files", "", false))
      for (size_t i = 0; i < fs->size(); ++i) file((*fs)[i], "/files/" + std::to_string(i));
    std::string doc_id = str(doc, "SPDXID");
    if (!doc_id.empty()) r_.known(doc_id);  // the document itself: relationships from it name no component
    std::vector<std::string> described;
    if (const json* dd = r_.want_array(doc, "documentDescribes", "", false))
      for (const auto& x : *dd)
        if (x.is_string()) described.push_back(x.get<std::string>());
    // hasFiles (2.2): a package's files.
    for (const auto& [pkg, files] : has_files_)
      for (const auto& f : files) contains(pkg, f);
    if (const json* rs = r_.want_array(doc, "relationships", "", false))
      for (size_t i = 0; i < rs->size(); ++i) {
        const json& rel = (*rs)[i];
        std::string at = "/relationships/" + std::to_string(i);
        bool ok = r_.want_string(rel, "spdxElementId", at, true);
        ok = r_.want_string(rel, "relationshipType", at, true) && ok;
        ok = r_.want_string(rel, "relatedSpdxElement", at, true) && ok;
        if (!ok) continue;
        std::string a = rel["spdxElementId"], type = rel["relationshipType"], b = rel["relatedSpdxElement"];
        if (spdx_noassertion(b)) continue;
        if (a == doc_id && type == "DESCRIBES") {
          described.push_back(b);
          continue;
        }
        if (b == doc_id && type == "DESCRIBED_BY") {
          described.push_back(a);
          continue;
        }
        if (spdx_reversed(type)) std::swap(a, b);
        if (type == "CONTAINS" || type == "CONTAINED_BY" || type == "GENERATED_FROM" || type == "GENERATES") {
          contains(a, b);
          continue;
        }
        auto from = r_.find(a), to = r_.find(b);
        if (!from) r_.dangling(at, a);
        if (!to) r_.dangling(at, b);
        if (from && to) r_.edge(*from, *to);
      }
    for (const auto& id : described)
      if (auto i = r_.find(id)) {
        if (d.primary < 0) d.primary = static_cast<int>(*i);
      } else {
        r_.dangling("/documentDescribes", id);
      }
  }

 private:
  // A contains b: an edge, and b's path among a's contained paths when b is a file.
  void contains(const std::string& a, const std::string& b) {
    auto from = r_.find(a), to = r_.find(b);
    if (!from) r_.dangling("relationship", a);
    if (!to) r_.dangling("relationship", b);
    if (!from || !to) return;
    r_.edge(*from, *to);
    r_.holds(*from, *to);
  }

  void checksums(const json& o, const std::string& at, SbomComponent& out, bool required) {
    if (const json* cs = r_.want_array(o, "checksums", at, required))
      for (size_t i = 0; i < cs->size(); ++i) {
        std::string cat = at + "/checksums/" + std::to_string(i);
        bool ok = r_.want_string((*cs)[i], "algorithm", cat, true);
        ok = r_.want_string((*cs)[i], "checksumValue", cat, true) && ok;
        if (!ok) continue;
        std::string hex = (*cs)[i]["checksumValue"];
        if (!is_hex(hex)) {
          r_.error(cat + "/checksumValue: not a hexadecimal digest");
          continue;
        }
        out.hashes.push_back({hash_algorithm((*cs)[i]["algorithm"].get<std::string>()), to_lower(hex)});
      }
  }

  void package(const json& p, const std::string& at) {
    if (!p.is_object()) return r_.error(at + ": must be an object");
    SbomComponent out;
    out.type = "package";
    if (r_.want_string(p, "SPDXID", at, true)) out.ref = p["SPDXID"];
    if (r_.want_string(p, "name", at, true)) out.name = p["name"];
    if (r_.want_string(p, "downloadLocation", at, true)) {
      std::string dl = p["downloadLocation"];
      if (!spdx_noassertion(dl)) out.download_url = dl;
    }
    if (r_.want_string(p, "versionInfo", at, false)) out.version = p["versionInfo"];
    checksums(p, at, out, false);
    if (const json* refs = r_.want_array(p, "externalRefs", at, false))
      for (size_t i = 0; i < refs->size(); ++i) {
        const json& e = (*refs)[i];
        std::string eat = at + "/externalRefs/" + std::to_string(i);
        bool ok = true;
        for (const char* key : {"referenceCategory", "referenceType", "referenceLocator"})
          ok = r_.want_string(e, key, eat, true) && ok;
        if (!ok) continue;
        std::string type = e["referenceType"], loc = e["referenceLocator"];
        if (type == "purl" && out.purl.empty()) out.purl = loc;
        if (type == "cpe23Type" || type == "cpe22Type") out.cpes.push_back(loc);
      }
    if (const json* hf = r_.want_array(p, "hasFiles", at, false))
      for (const auto& x : *hf)
        if (x.is_string()) has_files_[out.ref].push_back(x.get<std::string>());
    r_.add(std::move(out));
  }

  void file(const json& f, const std::string& at) {
    if (!f.is_object()) return r_.error(at + ": must be an object");
    SbomComponent out;
    out.type = "file";
    out.is_file = true;
    if (r_.want_string(f, "SPDXID", at, true)) out.ref = f["SPDXID"];
    if (r_.want_string(f, "fileName", at, true)) {
      out.name = f["fileName"];
      out.locations.push_back(archive_path(out.name));
    }
    checksums(f, at, out, true);
    r_.add(std::move(out));
  }

  Reader& r_;
  std::map<std::string, std::vector<std::string>> has_files_;
};

// --- SPDX 3.0 JSON-LD -------------------------------------------------------------------------

bool spdx3_context(const json& c) {
  auto one = [](const json& x) {
    return x.is_string() && x.get<std::string>().find("spdx.org/rdf/3.") != std::string::npos;
  };
  if (one(c)) return true;
  if (c.is_array()) return std::any_of(c.begin(), c.end(), one);
  return false;
}

std::string spdx3_type(const json& e) {
  std::string t = str(e, "type");
  if (t.empty()) t = str(e, "@type");
  auto colon = t.rfind(':');  // "spdx:software_Package" in expanded documents
  return colon == std::string::npos ? t : t.substr(colon + 1);
}

std::string spdx3_id(const json& e) {
  std::string id = str(e, "spdxId");
  return id.empty() ? str(e, "@id") : id;
}

class Spdx3 {
 public:
  explicit Spdx3(Reader& r) : r_(r) {}

  void run(const json& doc) {
    SbomDocument& d = r_.d_;
    d.format = "SPDX";
    std::string ctx = doc["@context"].is_string() ? doc["@context"].get<std::string>() : "";
    auto v = ctx.find("/rdf/");
    if (v != std::string::npos) {
      auto end = ctx.find('/', v + 5);
      d.spec_version = ctx.substr(v + 5, end == std::string::npos ? std::string::npos : end - v - 5);
    }
    if (d.spec_version.empty()) d.spec_version = "3.0";
    if (!d.spec_version.starts_with("3.0"))
      r_.warning("SPDX " + d.spec_version + " is newer than the versions known here (3.0); read by 3.0's fields");
    const json* graph = r_.want_array(doc, "@graph", "", true);
    if (!graph) return;
    std::vector<std::string> roots;
    std::vector<std::pair<size_t, const json*>> relationships;
    for (size_t i = 0; i < graph->size(); ++i) {
      const json& e = (*graph)[i];
      std::string at = "/@graph/" + std::to_string(i);
      if (!e.is_object()) {
        r_.error(at + ": must be an object");
        continue;
      }
      std::string type = spdx3_type(e);
      if (type.empty()) {
        r_.error(at + ": required field 'type' is missing");
        continue;
      }
      if (type == "CreationInfo") {
        creation(e, at);
        continue;
      }
      if (const json* ci = member(e, "creationInfo"); ci && ci->is_object()) creation(*ci, at + "/creationInfo");
      if (type == "Tool") {
        if (std::string name = str(e, "name"); !name.empty()) d.tools.push_back(name);
        d.has_tool = true;
      }
      if (type == "SpdxDocument" || type == "software_Sbom" || type == "Bom") {
        if (const json* re = r_.want_array(e, "rootElement", at, false))
          for (const auto& x : *re)
            if (x.is_string()) roots.push_back(x.get<std::string>());
        if (!member(e, "creationInfo")) r_.error(at + ": required field 'creationInfo' is missing");
        continue;
      }
      if (type == "Relationship" || type == "LifecycleScopedRelationship") {
        relationships.emplace_back(i, &e);
        continue;
      }
      if (type != "software_Package" && type != "software_File") continue;
      SbomComponent out;
      out.type = type == "software_File" ? "file" : "package";
      out.is_file = type == "software_File";
      out.ref = spdx3_id(e);
      if (out.ref.empty()) r_.error(at + ": required field 'spdxId' is missing");
      if (!member(e, "creationInfo")) r_.error(at + ": required field 'creationInfo' is missing");
      if (r_.want_string(e, "name", at, out.is_file)) out.name = e["name"];
      if (r_.want_string(e, "software_packageVersion", at, false)) out.version = e["software_packageVersion"];
      if (r_.want_string(e, "software_packageUrl", at, false)) out.purl = e["software_packageUrl"];
      if (r_.want_string(e, "software_downloadLocation", at, false)) out.download_url = e["software_downloadLocation"];
      if (const json* ids = r_.want_array(e, "externalIdentifier", at, false))
        for (const auto& x : *ids) {
          std::string t = str(x, "externalIdentifierType"), id = str(x, "identifier");
          if ((t == "cpe23" || t == "cpe22") && !id.empty()) out.cpes.push_back(id);
          if (t == "packageUrl" && out.purl.empty()) out.purl = id;
        }
      if (const json* vs = r_.want_array(e, "verifiedUsing", at, false))
        for (const auto& x : *vs) {
          std::string alg = str(x, "algorithm"), val = str(x, "hashValue");
          if (!alg.empty() && is_hex(val)) out.hashes.push_back({hash_algorithm(alg), to_lower(val)});
        }
      if (out.is_file && !out.name.empty()) out.locations.push_back(archive_path(out.name));
      r_.add(std::move(out));
    }
    if (!d.has_created) r_.error("no CreationInfo with a 'created' time");
    for (const auto& [i, rel] : relationships) {
      std::string at = "/@graph/" + std::to_string(i);
      bool ok = r_.want_string(*rel, "from", at, true);
      ok = r_.want_string(*rel, "relationshipType", at, true) && ok;
      const json* to = r_.want_array(*rel, "to", at, true);
      if (!ok || !to) continue;
      std::string a = (*rel)["from"], type = (*rel)["relationshipType"];
      if (type.starts_with("has") && type.find("License") != std::string::npos) continue;  // licensing, not software
      auto from = r_.find(a);
      for (const auto& x : *to) {
        if (!x.is_string()) continue;
        std::string b = x.get<std::string>();
        if (type == "describes") {
          roots.push_back(b);
          continue;
        }
        auto t = r_.find(b);
        if (!from || !t) continue;  // relationships to licenses, agents, annotations
        r_.edge(*from, *t);
        if (type == "contains") r_.holds(*from, *t);
      }
    }
    for (const auto& id : roots)
      if (auto i = r_.find(id); i && d.primary < 0 && !d.components[*i].is_file) d.primary = static_cast<int>(*i);
  }

 private:
  void creation(const json& c, const std::string& at) {
    SbomDocument& d = r_.d_;
    if (r_.want_string(c, "created", at, false)) d.has_created = true;
    if (const json* using_ = member(c, "createdUsing"); using_ && using_->is_array() && !using_->empty())
      d.has_tool = true;
  }
  Reader& r_;
};

// Every string value of the document that reads as a build machine's path.
void scan_build_paths(const json& v, std::string& pointer, SbomDocument& d) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (is_build_machine_path(s)) {
      if (d.build_paths.size() < 5) d.build_paths.push_back(pointer + ": " + clip_for_display(s, 120));
      ++d.build_path_count;
    }
    return;
  }
  if (!v.is_structured()) return;
  const size_t len = pointer.size();
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) {
      pointer += '/';
      for (char ch : k) pointer += ch == '~' ? "~0" : ch == '/' ? "~1" : std::string(1, ch);  // RFC 6901
      scan_build_paths(x, pointer, d);
      pointer.resize(len);
    }
  } else {
    size_t i = 0;
    for (const auto& x : v) {
      pointer += "/" + std::to_string(i++);
      scan_build_paths(x, pointer, d);
      pointer.resize(len);
    }
  }
}

std::string_view first_text(std::string_view t) {
  if (t.starts_with("\xEF\xBB\xBF")) t.remove_prefix(3);
  while (!t.empty() && (t.front() == ' ' || t.front() == '\n' || t.front() == '\r' || t.front() == '\t'))
    t.remove_prefix(1);
  return t;
}

}  // namespace

size_t SbomDocument::file_count() const {
  return static_cast<size_t>(
      std::count_if(components.begin(), components.end(), [](const auto& c) { return c.is_file; }));
}

bool is_build_machine_path(std::string_view s) {
  // URL forms tools write: file:///home/..., file://localhost/..., path+file://..., git+file://...,
  // file:///C:/Users/...; a UNC path (\\server\share\..., //server/share/...) is a machine's share.
  for (std::string_view scheme : {"path+file://", "git+file://", "file://localhost/", "file://"})
    if (s.size() > scheme.size() && to_lower(s.substr(0, scheme.size())) == scheme) {
      s.remove_prefix(scheme.size() - (scheme.ends_with("localhost/") ? 1 : 0));
      break;
    }
  if (s.size() > 3 && s[0] == '/' && is_alpha(s[1]) && s[2] == ':') s.remove_prefix(1);
  if (s.size() > 4 && (s.starts_with("\\\\") || (s.starts_with("//") && s[2] != '/'))) {
    const size_t server_end = s.find_first_of("\\/", 2);
    return server_end != std::string_view::npos && server_end > 2 && server_end + 1 < s.size();
  }
  static const std::string_view posix[] = {"/__w/",    "/home/",    "/Users/",       "/github/workspace/",
                                           "/tmp/",    "/var/tmp/", "/private/tmp/", "/private/var/folders/",
                                           "/builds/", "/root/",    "/project/",     "/opt/hostedtoolcache/"};
  for (auto p : posix)
    if (s.starts_with(p) && s.size() > p.size()) return true;
  // Windows build machines, any drive, either slash, any case: GitHub's D:\a\<repo> and
  // C:\hostedtoolcache, a user's profile or temp folder, Azure's and TeamCity's agents, Jenkins'
  // workspaces, AppVeyor's C:\projects.
  if (s.size() > 5 && is_alpha(s[0]) && s[1] == ':' && (s[2] == '\\' || s[2] == '/')) {
    std::string rest = to_lower(s.substr(3));
    std::replace(rest.begin(), rest.end(), '\\', '/');
    for (std::string_view p : {"a/", "users/", "hostedtoolcache/", "windows/temp/", "temp/", "tmp/", "agent/_work/",
                               "buildagent/work/", "jenkins/workspace/", "projects/", "actions-runner/_work/"})
      if (rest.starts_with(p) && rest.size() > p.size()) return true;
  }
  return false;
}

std::string bom_ref_path_hash(std::string_view ref) {
  auto hash = ref.rfind('#');
  if (hash == std::string_view::npos) return "";
  std::string_view h = ref.substr(hash + 1);
  return h.size() == 64 && is_hex(h) ? to_lower(h) : std::string();
}

std::string Purl::qualifier(std::string_view key) const {
  for (const auto& [k, v] : qualifiers)
    if (k == key) return v;
  return "";
}

bool parse_purl(std::string_view text, Purl& out) {
  out = Purl{};
  if (!text.starts_with("pkg:")) return false;
  text.remove_prefix(4);
  while (text.starts_with("/")) text.remove_prefix(1);
  if (auto h = text.find('#'); h != std::string_view::npos) text = text.substr(0, h);
  std::string_view quals;
  if (auto q = text.find('?'); q != std::string_view::npos) quals = text.substr(q + 1), text = text.substr(0, q);
  auto slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0) return false;
  out.type = to_lower(text.substr(0, slash));
  text = text.substr(slash + 1);
  while (text.ends_with("/")) text.remove_suffix(1);
  auto last = text.rfind('/');
  std::string_view name_version = last == std::string_view::npos ? text : text.substr(last + 1);
  if (last != std::string_view::npos) out.name_space = percent_decode(text.substr(0, last));
  if (auto at = name_version.find('@'); at != std::string_view::npos) {
    out.version = percent_decode(name_version.substr(at + 1));
    name_version = name_version.substr(0, at);
  }
  out.name = percent_decode(name_version);
  if (out.name.empty()) return false;
  for (auto kv : split(quals, '&')) {
    if (kv.empty()) continue;
    auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    out.qualifiers.emplace_back(to_lower(kv.substr(0, eq)), percent_decode(kv.substr(eq + 1)));
  }
  return true;
}

SbomDocument parse_sbom(std::string entry, std::string_view text, const SbomLimits& limits) {
  SbomDocument d;
  d.entry = std::move(entry);
  std::string_view t = first_text(text);
  if (t.empty()) {
    d.errors.push_back("the file is empty");
    return d;
  }
  if (t.front() != '{' && t.front() != '[') {
    // Other serialisations of the two standards are known by their first words; anything else is
    // a standard this reader does not know.
    std::string head = to_lower(t.substr(0, 4096));
    if (t.front() == '<' && head.find("cyclonedx") != std::string::npos)
      d.known_as = "CycloneDX XML";
    else if (head.starts_with("spdxversion:"))
      d.known_as = "SPDX tag-value";
    else if (t.front() == '<' && head.find("spdx") != std::string::npos)
      d.known_as = "SPDX RDF/XML";
    else if (head.starts_with("bomformat:") || head.find("\nbomformat:") != std::string::npos)
      d.known_as = "CycloneDX YAML";
    // A name that says JSON (x.cdx.json, x.spdx.json) over other content: readers of the SBOM fail.
    if (to_lower(std::string_view(d.entry).substr(d.entry.size() > 5 ? d.entry.size() - 5 : 0)) == ".json")
      d.errors.push_back(
          "named .json, but the content is not JSON (" +
          (d.known_as.empty() ? "it starts with '" + clip_for_display(t.substr(0, 20), 20) + "'" : d.known_as) +
          "): SBOM readers of the named format fail on it");
    return d;
  }
  // The depth is bounded before parsing, without a parser callback (with one, nlohmann rescans a
  // container after each object it closes: 60,000 SPDX files took 6 s).
  JsonError err;
  auto parsed = parse_json(t, &err, limits.max_depth + 1);
  if (!parsed) {
    if (err.message.starts_with("nested more than"))
      d.errors.push_back("not read: nested deeper than " + std::to_string(limits.max_depth) + " levels");
    else
      d.errors.push_back("not valid JSON: " + err.message +
                         (err.byte ? " (byte " + std::to_string(err.byte) + ")" : ""));
    return d;
  }
  json doc = std::move(*parsed);
  if (!doc.is_object()) {
    d.errors.push_back("the document is not a JSON object");
    return d;
  }
  Reader r(d, limits);
  try {
    if (const json* f = member(doc, "bomFormat")) {
      if (f->is_string() && f->get<std::string>() == "CycloneDX")
        CycloneDx(r).run(doc);
      else
        r.error("/bomFormat: must be \"CycloneDX\"");
      d.format = "CycloneDX";
    } else if (member(doc, "spdxVersion")) {
      Spdx2(r).run(doc);
    } else if (const json* c = member(doc, "@context"); c && spdx3_context(*c)) {
      Spdx3(r).run(doc);
    } else {
      return d;  // JSON of a standard not known here
    }
  } catch (const TooMany& e) {
    r.error(std::string("not read whole: ") + e.what());
  }
  r.finish();
  std::string pointer;
  scan_build_paths(doc, pointer, d);
  return d;
}

}  // namespace wc
