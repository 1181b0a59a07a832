#include "report/inspect_text.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "binary/binary_facts.h"
#include "facts/sdist.h"
#include "rules/loader/torch_abi.h"
#include "rules/supply_chain/sbom_rules.h"
#include "util/strings.h"

namespace wc {
namespace {

// "sm_80 sm_90a compute_90" -> which compute capabilities can run it (docs/DESIGN.md, "NVIDIA fatbin layout"): SASS
// sm_XY on X.Y..X.9, sm_XYa on X.Y only, PTX compute_XY on X.Y and newer through the driver's JIT.
std::string runs_on(const FatbinFacts& fb) {
  std::vector<std::string> parts;
  auto cc = [](uint32_t sm) { return std::to_string(sm / 10) + "." + std::to_string(sm % 10); };
  std::set<std::string> seen;
  for (const auto& e : fb.entries) {
    if (!seen.insert(e.name()).second) continue;
    if (e.kind == FatbinEntry::ptx)
      parts.push_back(">=" + cc(e.sm) + " (JIT)");
    else if (e.suffix == "a")
      parts.push_back(cc(e.sm) + " only");
    else
      parts.push_back(cc(e.sm) + (e.sm % 10 == 9 ? "" : "-" + std::to_string(e.sm / 10) + ".9"));
  }
  return join(parts, ", ");
}

// "sm_80 x33, sm_86 x33, sm_75 x1": how many fatbin containers carry each architecture.
std::string per_container(const FatbinFacts& fb) {
  std::map<std::string, std::set<size_t>> by_arch;
  for (const auto& e : fb.entries) by_arch[e.name()].insert(e.container);
  std::vector<std::string> parts;
  for (const auto& name : fb.sass()) parts.push_back(name + " x" + std::to_string(by_arch[name].size()));
  for (const auto& name : fb.ptx()) parts.push_back(name + " x" + std::to_string(by_arch[name].size()));
  return join(parts, ", ");
}

// Symbols using the libstdc++ string/list ABIs, per namespace: the policy's (WC512), else the
// five namespaces with the most.
std::string cxx_abi_line(const BinaryFacts& b, const Policy& policy) {
  std::vector<std::pair<std::string, CxxAbiCount>> rows;
  if (policy.abi.cxx11) {
    for (const auto& ns : policy.abi.cxx11->namespaces)
      if (auto it = b.cxx_abi.find(ns); it != b.cxx_abi.end()) rows.emplace_back(ns, it->second);
  } else {
    rows.assign(b.cxx_abi.begin(), b.cxx_abi.end());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
      return x.second.cxx11 + x.second.pre_cxx11 > y.second.cxx11 + y.second.pre_cxx11;
    });
    if (rows.size() > 5) rows.resize(5);
  }
  std::vector<std::string> parts;
  for (const auto& [ns, n] : rows)
    parts.push_back(ns + ":: " + std::to_string(n.cxx11) + " C++11 / " + std::to_string(n.pre_cxx11) + " pre-C++11");
  return parts.empty() ? "no std::string/std::list symbols in the policy's namespaces" : join(parts, ", ");
}

// PEP 770: each document's parse (format, primary, components and what each declares in the wheel),
// then which bundled libraries no component declares.
void print_sbom_text(const WheelFacts& f, std::ostream& out) {
  SbomCoverage cov = sbom_coverage(f);
  if (f.sboms.empty() && cov.bundled.empty()) return;
  std::map<std::pair<size_t, size_t>, std::vector<std::string>> declares;  // (document, component) -> libraries
  for (size_t i = 0; i < cov.bundled.size(); ++i)
    if (const auto& l = cov.declared_by[i])
      declares[{l->document, l->component}].push_back(cov.bundled[i].entry + " (by " + l->how + ")");
  for (size_t di = 0; di < f.sboms.size(); ++di) {
    const SbomDocument& d = f.sboms[di];
    out << "  sbom      " << escape_for_display(d.entry) << ": ";
    if (d.unknown())
      out << (d.errors.empty() ? (d.known_as.empty() ? std::string("a format not read") : d.known_as + " (not read)")
                               : escape_for_display(d.errors.front()))
          << "\n";
    if (d.unknown()) continue;
    out << d.format << " " << escape_for_display(d.spec_version) << ", " << d.component_count() << " components"
        << (d.file_count() ? ", " + std::to_string(d.file_count()) + " files" : "")
        << (d.tools.empty() ? "" : ", by " + escape_for_display(join(d.tools, ", "))) << "\n";
    if (d.primary >= 0) {
      const auto& p = d.components[d.primary];
      out << "            primary " << escape_for_display(p.purl.empty() ? p.name + " " + p.version : p.purl) << "\n";
    }
    size_t shown = 0;
    const size_t listed =
        d.component_count() - (d.primary >= 0 && !d.components[d.primary].is_file ? 1 : 0);  // all but the primary
    for (size_t ci = 0; ci < d.components.size(); ++ci) {
      const auto& c = d.components[ci];
      if (c.is_file || static_cast<int>(ci) == d.primary) continue;
      if (shown++ == 40) {
        out << "            ... " << (listed - 40) << " more components\n";
        break;
      }
      out << "            " << escape_for_display(c.name)
          << (c.version.empty() ? "" : " " + escape_for_display(c.version))
          << (c.purl.empty() ? "" : "  " + escape_for_display(c.purl)) << "\n";
      if (auto it = declares.find({di, ci}); it != declares.end())
        for (const auto& lib : it->second) out << "              declares " << escape_for_display(lib) << "\n";
    }
  }
  if (!cov.bundled.empty()) {
    out << "  bundled   " << cov.bundled.size() << " native librar" << (cov.bundled.size() == 1 ? "y" : "ies")
        << ", declared " << cov.declared() << "\n";
    for (const auto* b : cov.undeclared())
      out << "            undeclared " << escape_for_display(b->entry)
          << (b->upstream.empty() ? "" : " (" + b->upstream + ")") << "\n";
  }
}

std::string binding_line(const SymbolBinding& sb) {
  if (!sb.not_judged.empty()) return "not bound: " + sb.not_judged;
  auto list = [](const std::vector<std::pair<std::string, size_t>>& v) {
    std::vector<std::string> parts;
    for (const auto& [what, n] : v) parts.push_back(std::to_string(n) + " " + escape_for_display(what));
    return join(parts, "; ");
  };
  size_t bound = 0, trusted = 0;
  for (const auto& [what, n] : sb.bound) bound += n;
  for (const auto& [what, n] : sb.trusted) trusted += n;
  std::string s = std::to_string(sb.undefined) + " undefined: " + std::to_string(bound) + " bound" +
                  (sb.bound.empty() ? "" : " (" + list(sb.bound) + ")") + ", " + std::to_string(trusted) +
                  " taken on trust" + (sb.trusted.empty() ? "" : " (" + list(sb.trusted) + ")") + ", " +
                  std::to_string(sb.unbound) + " bound nowhere";
  return s;
}

}  // namespace

void print_sdist_text(const WheelFacts& f, std::ostream& out) {
  const SdistFacts& sd = f.sdist_facts;
  out << escape_for_display(f.path) << "  (source distribution, " << f.file_size << " bytes, "
      << (sd.format.empty() ? std::string("unread") : sd.format) << ", " << sd.entries << " entries, "
      << human_bytes(sd.uncompressed) << " unpacked)\n";
  for (const auto& u : f.unreadable) out << "  unreadable: " << escape_for_display(u.message) << "\n";
  for (const auto& p : sd.problems)
    out << "  " << p.rule << ": " << escape_for_display(p.message)
        << (p.entry.empty() ? "" : " (" + escape_for_display(p.entry) + ")") << "\n";
  if (!sd.pkg_info) {
    out << "  PKG-INFO  " << escape_for_display(sd.pkg_info_problem) << "\n";
    return;
  }
  const HeaderFile& m = *sd.pkg_info;
  out << "  PKG-INFO  " << escape_for_display(sd.top.empty() ? std::string("PKG-INFO") : sd.top + "/PKG-INFO") << "\n";
  for (const char* k : {"Metadata-Version", "Name", "Version", "Requires-Python", "License-Expression"})
    if (auto v = m.get(k)) out << "  " << k << ": " << escape_for_display(*v) << "\n";
  for (const char* k : {"Requires-Dist", "Provides-Extra"})
    for (const auto& v : m.get_all(k)) out << "  " << k << ": " << escape_for_display(v) << "\n";
  const auto dynamic = m.get_all("Dynamic");
  if (!promises_static_metadata(m))
    out << "  dynamic   unknown: Metadata-Version below 2.2 cannot say (PEP 643), so no field is held to the "
           "wheels\n";
  else if (dynamic.empty())
    out << "  dynamic   none: every field is static, and a wheel built from it must carry the same\n";
  else
    out << "  dynamic   " << escape_for_display(join(dynamic, ", ")) << " (a build may change these; the rest are "
        << "static)\n";
}

void print_inspect_text(const WheelFacts& f, const CudaFacts& cuda, const JustifiedTag& justified, const Policy& policy,
                        const std::vector<SymbolBinding>& bindings, std::ostream& out) {
  out << escape_for_display(f.path) << "  (" << f.file_size << " bytes, " << f.entries.size() << " entries"
      << (f.zip64 ? ", ZIP64" : "") << ")\n";
  const auto& n = f.filename;
  if (n.valid) {
    out << "  name      " << n.name << " " << (n.version ? n.version->normalized() : n.version_text)
        << (n.build ? " build " + n.build->number + n.build->suffix : "") << "\n  tags     ";
    for (const auto& t : n.tags) out << " " << t.str();
    out << "\n";
  } else {
    out << "  name      invalid: " << n.error << "\n";
  }
  for (const auto& p : f.unreadable) out << "  unreadable: " << escape_for_display(p.message) << "\n";
  if (!f.dist_info.empty()) out << "  dist-info " << escape_for_display(f.dist_info) << "\n";
  if (f.metadata) {
    for (const char* k : {"Metadata-Version", "Name", "Version", "Requires-Python"})
      if (auto v = f.metadata->get(k)) out << "  " << k << ": " << escape_for_display(*v) << "\n";
    for (const auto& r : f.metadata->get_all("Requires-Dist"))
      out << "  Requires-Dist: " << escape_for_display(r) << "\n";
  }
  if (cuda.variant) out << "  CUDA      variant " << cuda.variant->name << " (" << cuda.variant->source << ")\n";
  for (const auto& l : cuda.links)
    out << "  CUDA      " << escape_for_display(l.binary) << " links " << l.soname << " (CUDA " << l.major << ")\n";
  for (const auto& p : cuda.pins)
    out << "  CUDA      pin " << escape_for_display(p.requirement) << " (CUDA " << p.major << ")\n";
  if (f.filename.variant_label || f.variant) {
    const auto& doc = f.variant;
    std::string label = f.filename.variant_label.value_or("(none in the file name)");
    out << "  variant   label " << escape_for_display(label);
    if (doc) out << ", variant.json schema " << variant_schema_name(doc->schema);
    out << "\n";
    if (doc)
      for (const auto& [l, props] : doc->variants) {
        out << "            " << escape_for_display(l) << ": " << escape_for_display(describe_variant_properties(props))
            << "\n            selects " << escape_for_display(describe_variant_selection(props)) << "\n";
      }
  }
  print_sbom_text(f, out);
  if (f.binaries.empty()) return;
  std::string ceiling, by;
  for (const auto& b : f.binaries) {
    auto mx = b.max_symbol_versions();
    if (mx.count("GLIBC") && (ceiling.empty() || compare_dotted(mx["GLIBC"], ceiling) > 0))
      ceiling = mx["GLIBC"], by = b.path;
  }
  if (!ceiling.empty()) out << "  glibc     needs " << ceiling << " (set by " << escape_for_display(by) << ")\n";
  if (justified.applies)
    out << "  platform  "
        << (justified.tag ? "binaries justify " + *justified.tag
                          : "no portable tag fits: " + escape_for_display(justified.why))
        << "\n";
  out << "  binaries (" << f.binaries.size() << "):\n";
  for (const auto& b : f.binaries) {
    out << "    " << escape_for_display(b.path) << "\n      " << b.format << " " << b.arch;
    if (b.format == "elf") {
      auto mx = b.max_symbol_versions();
      out << (b.libc.empty() ? "" : " " + b.libc);
      if (mx.count("GLIBC")) out << ", needs GLIBC " << mx["GLIBC"];
      for (const char* p : {"GLIBCXX", "CXXABI", "GCC"})
        if (mx.count(p)) out << ", " << p << " " << mx[p];
      if (b.x86_isa_level) out << ", x86-64-v" << *b.x86_isa_level;
      if (b.exec_stack) out << ", EXECUTABLE STACK";
      out << "\n";
      if (!b.needed.empty()) out << "      needs   " << join(b.needed, " ") << "\n";
      if (!b.rpath.empty()) out << "      rpath   " << join(b.rpath, ":") << "\n";
      if (!b.runpath.empty()) out << "      runpath " << join(b.runpath, ":") << "\n";
      if (!b.cxx_abi.empty()) out << "      C++ ABI " << cxx_abi_line(b, policy) << "\n";
      if (b.symbols)
        out << "      symbols " << b.symbols->defined().size() << " exported, " << b.symbols->undefined().size()
            << " imported\n";
      for (const auto& sb : bindings)
        if (sb.binary == b.path) out << "      binding " << binding_line(sb) << "\n";
      if (TorchAbi t = torch_abi_of(b, policy.abi); t.links_torch)
        out << "      torch   "
            << (t.stable ? "stable ABI" + (t.min_torch.empty()
                                               ? std::string()
                                               : ", needs torch >= " + t.min_torch + " (" + t.newest_shim + ")")
                         : "unstable C++ ABI, " + std::to_string(t.unstable) + " symbols (first " +
                               escape_for_display(t.first_unstable) + ")")
            << "\n";
    } else if (b.format == "macho") {
      out << "\n";
      for (const auto& s : b.slices)
        out << "      slice " << s.arch << " minos " << (s.minos.empty() ? "?" : s.minos) << ", " << s.dylibs.size()
            << " dylibs\n";
      for (const auto& sb : bindings)
        if (sb.binary == b.path) out << "      binding " << binding_line(sb) << "\n";
    } else {
      out << "\n      imports " << join(b.dlls, " ") << "\n";
    }
    if (!b.fatbin.empty()) {
      out << "      GPU: " << (b.cuda_toolkit.empty() ? "" : "built by CUDA " + b.cuda_toolkit + "; ")
          << b.fatbin.containers << " fatbin container(s); SASS " << join(b.fatbin.sass(), " ") << "; PTX "
          << (b.fatbin.ptx().empty() ? "none" : join(b.fatbin.ptx(), " "))
          << "\n      containers per arch: " << per_container(b.fatbin) << "\n      runs on compute capability "
          << runs_on(b.fatbin) << "\n";
    }
    if (!b.hip.empty())
      out << "      AMD GPU: " << (b.hip.error.empty() ? join(b.hip.targets, " ") : escape_for_display(b.hip.error))
          << (b.hip.compression.empty() ? "" : " (" + b.hip.compression + "-compressed bundle)") << "\n";
    for (const auto& e : b.errors) out << "      error: " << escape_for_display(e) << "\n";
  }
}

}  // namespace wc
