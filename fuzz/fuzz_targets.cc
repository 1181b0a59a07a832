#include "fuzz_targets.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <unistd.h>

#include "binary/binary_facts.h"
#include "binary/fatbin.h"
#include "facts/analyze.h"
#include "io/source.h"
#include "io/targets.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "wheel/filename.h"
#include "wheel/metadata.h"
#include "wheel/version.h"

namespace wc::fuzz {
namespace {

std::string_view text(const uint8_t* d, size_t n) { return {reinterpret_cast<const char*>(d), n}; }

const Policy& default_policy() {
  static const Policy p = load_policy("default");
  return p;
}

// A wheel's facts with the given dist-info file text, so the rules run over fuzzed text.
WheelFacts facts_with(const char* file, std::string_view t) {
  WheelFacts f;
  f.path = "fuzz-1.0-py3-none-any.whl";
  f.filename = parse_wheel_filename(f.path);
  f.dist_info = "fuzz-1.0.dist-info";
  f.dist_info_dirs = {f.dist_info};
  EntryFacts e;
  e.name = f.dist_info + "/" + file;
  e.size = e.bytes_read = t.size();
  f.entries.push_back(e);
  f.reindex();
  if (std::string_view(file) == "METADATA") f.metadata = parse_header_file(t);
  else f.wheel_file = parse_header_file(t);
  return f;
}

}  // namespace

void zip(const uint8_t* d, size_t n) {
  MemorySource src("fuzz-1.0-py3-none-any.whl", std::vector<uint8_t>(d, d + n));
  AnalyzeOptions opt = analyze_options_for(default_policy());
  opt.limits.max_total_uncompressed_bytes = 64u << 20;  // keep one input's work bounded
  WheelFacts f = analyze_wheel(src, opt);
  check_wheel(f, default_policy());
}

void filename(const uint8_t* d, size_t n) {
  WheelFacts f;
  f.path = std::string(text(d, n));
  f.filename = parse_wheel_filename(f.path);
  for (const auto& t : f.filename.platform_tags) classify_platform(t);
  check_wheel(f, default_policy());
}

void metadata(const uint8_t* d, size_t n) { check_wheel(facts_with("METADATA", text(d, n)), default_policy()); }

void record(const uint8_t* d, size_t n) { parse_record(text(d, n)); }

void wheel(const uint8_t* d, size_t n) { check_wheel(facts_with("WHEEL", text(d, n)), default_policy()); }

void version(const uint8_t* d, size_t n) {
  std::string_view t = text(d, n);
  auto v = parse_version(t);
  if (v) (void)v->normalized();
  auto s = SpecifierSet::parse(t);
  if (s && v) (void)s->contains(*v);
}

void elf(const uint8_t* d, size_t n) {
  BinaryFacts b;
  parse_elf_image(d, n, b);
}

void macho(const uint8_t* d, size_t n) {
  BinaryFacts b;
  parse_binary_image(d, n, b);
}

void pe(const uint8_t* d, size_t n) {
  BinaryFacts b;
  parse_binary_image(d, n, b);
}

void fatbin(const uint8_t* d, size_t n) {
  // The first byte chooses the chunk size, so splits at every position get exercised.
  if (n == 0) return;
  size_t chunk = 1 + d[0] % 97;
  FatbinScanner s;
  for (size_t i = 1; i < n; i += chunk) s.feed(d + i, std::min(chunk, n - i));
  std::vector<std::string> errors;
  select_fatbins(s, std::nullopt, errors);
  select_fatbins(s, ByteRange{0, n}, errors);
}

void policy(const uint8_t* d, size_t n) {
  std::string t(text(d, n));
  if (!validate_policy_text(t, "fuzz.json").empty()) return;
  // A valid document also goes through extends resolution and the typed parse.
  char path[] = "/tmp/wheelcheck-fuzz-policy-XXXXXX";
  int fd = ::mkstemp(path);
  if (fd < 0) return;
  (void)!::write(fd, t.data(), t.size());
  ::close(fd);
  try {
    load_policy(path);
  } catch (const PolicyError&) {
  }
  std::filesystem::remove(path);
}

void index(const uint8_t* d, size_t n) {
  try {
    parse_index_page(std::string(text(d, n)), "https://example.org/simple/pkg/");
  } catch (const std::runtime_error&) {  // malformed JSON is an error by contract
  }
}

const std::vector<NamedTarget>& all_targets() {
  static const std::vector<NamedTarget> t = {{"zip", zip},       {"filename", filename}, {"metadata", metadata},
                                             {"record", record}, {"wheel", wheel},       {"version", version},
                                             {"elf", elf},       {"macho", macho},       {"pe", pe},
                                             {"fatbin", fatbin}, {"policy", policy},     {"index", index}};
  return t;
}

}  // namespace wc::fuzz
