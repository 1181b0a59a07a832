// What a baseline must remember of each wheel for the regression rules (WC710-WC716) and
// `wheelcheck diff`: per native binary its needs, floors, GPU code and exported names; the wheel's
// entry points and top-level import packages. Carried in every JSON report's `release` member, so
// yesterday's report is enough to judge today's wheels.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/wheel_facts.h"

namespace wc {

struct BinarySummary {
  std::string path;                 // archive entry name
  std::string format;               // elf, macho, pe
  std::string soname;               // ELF DT_SONAME, Mach-O install name, else ""
  std::vector<std::string> needed;  // DT_NEEDED, Mach-O dylib load commands, PE DLLs (sorted)
  // The newest version needed per prefix (GLIBC, GLIBCXX, CXXABI, GCC) and, for Mach-O, "macos"
  // (the newest slice minos).
  std::map<std::string, std::string> floors;
  std::vector<std::string> sass, ptx;  // "sm_90a", "compute_120"
  // Exported names: ELF defined GLOBAL/WEAK/UNIQUE of default or protected visibility, without
  // version nodes and the linker's _end/_edata/__bss_start; the Mach-O export trie; the PE export
  // directory. Sorted, each once. Unknown when not read (exports_known false).
  std::vector<std::string> exports;
  bool exports_known = false;
};

std::vector<BinarySummary> summarize_binaries(const WheelFacts& f);
// "group:name" for each entry point of entry_points.txt, sorted.
std::vector<std::string> entry_point_names(const WheelFacts& f);
// The top-level import names the wheel installs (packages, modules, extension modules), sorted.
std::vector<std::string> top_level_names(const WheelFacts& f);

nlohmann::json binary_summary_to_json(const BinarySummary& b);
// Throws std::runtime_error naming what is wrong (a names blob that does not decode).
BinarySummary binary_summary_from_json(const nlohmann::json& j);

// The exported names, compactly: sorted, front-coded (one byte of shared prefix length, the rest,
// a newline), zstd-compressed, base64. torch 2.15.0's libtorch_cpu.so: 75k names, 5.2 MB as text,
// about 0.4 MB here.
std::string pack_names(const std::vector<std::string>& sorted);
// nullopt when `packed` is not such a blob (or inflates past 256 MiB).
std::optional<std::vector<std::string>> unpack_names(const std::string& packed);

}  // namespace wc
