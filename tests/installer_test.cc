// The gate reads what the installer reads (issue 28, section 1). pip reads wheels with Python's
// zipfile and installs them by its own and pypa/installer's rules; wherever wheelcheck's reading
// could differ, it reads the same way or refuses the wheel. One test per class of difference,
// each over crafted archives (tests/support/installer_cases.cc) with their exact findings and
// controls that must pass; the facts they rest on are asked of the real programs (Python's
// str.splitlines and cp437 codec, unzip's symlinks, zipfile's refusals); and a differential
// harness compares what wheelcheck says a wheel installs (install_map) with what zipfile +
// installer and libarchive's two zip readers install, over every crafted archive and over random
// mutations of them for a bounded time (WHEELCHECK_DIFF_SECONDS, 3 by default; `make fuzz` runs
// it longer). Any difference on a wheel wheelcheck does not refuse fails, printed as the
// difference of the two install maps.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "fuzz_targets.h"
#include "install_diff.h"
#include "io/source.h"
#include "io/zip_index.h"
#include "support/installer_cases.h"
#include "support/raw_zip.h"
#include "support/test_support.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/py_text.h"
#include "wheel_builder.h"

namespace wc {
namespace {

namespace fs = std::filesystem;
using fuzz::InstallReading;
using namespace wc::testing;

constexpr const char* kInstallerPin = "installer==0.7.0";

// ---- the real installer: Python's zipfile and pypa/installer in a venv --------------------------

struct Oracle {
  std::string python;  // the venv's interpreter
  std::string skip;    // why there is none
};

// The venv with the pinned installer, made once in the shared test cache through tools/wc_cache.py
// (locked, marked complete last); exit 3 means the index is offline: the tests that need it skip.
const Oracle& oracle() {
  static const Oracle o = [] {
    const char* home = std::getenv("HOME");
    std::string dir = std::string(home && *home ? home : "/tmp") + "/.cache/wheelcheck-tests";
    auto run = run_command("python3 " + shell_quote(std::string(WC_SOURCE_DIR) + "/tools/wc_cache.py") + " venv " +
                           shell_quote(dir + "/venv-installer-0.7.0") + " " + kInstallerPin);
    if (run.exit_code == 3) return Oracle{"", "the package index is offline: " + run.err};
    if (run.exit_code != 0) return Oracle{"", "wc_cache.py venv failed: " + run.err};
    std::string bin = run.out.substr(0, run.out.find_last_not_of("\n") + 1);
    bin = bin.substr(bin.rfind('\n') + 1);
    return Oracle{bin + "/python", ""};
  }();
  return o;
}

InstallReading reading_of(const nlohmann::json& j) {
  InstallReading r;
  if (j.contains("refused")) r.refused = j["refused"].get<std::string>();
  if (j.contains("files"))
    for (auto& [k, v] : j["files"].items()) r.files[k] = v.get<std::string>();
  if (j.contains("escapes"))
    for (auto& e : j["escapes"]) r.notes.push_back("writes outside its scheme directory: " + e.get<std::string>());
  return r;
}

// What zipfile + installer install from each wheel (tests/tools/installer_oracle.py), and in `pip`
// what pip's own installer writes.
std::vector<InstallReading> installer_readings(const std::vector<std::pair<std::string, std::vector<uint8_t>>>& wheels,
                                               std::string* error, std::vector<InstallReading>* pip = nullptr) {
  TempDir d;
  std::string list;
  for (size_t i = 0; i < wheels.size(); ++i) {
    fs::create_directories(d.file(std::to_string(i)));
    std::string path = d.file(std::to_string(i) + "/" + wheels[i].first);
    write_file(path, wheels[i].second);
    list += path + "\n";
  }
  write_file(d.file("list"), std::vector<uint8_t>(list.begin(), list.end()));
  std::string script = std::string(WC_SOURCE_DIR) + "/tests/tools/installer_oracle.py";
  auto run =
      run_command(shell_quote(oracle().python) + " " + shell_quote(script) + " < " + shell_quote(d.file("list")));
  std::vector<InstallReading> out;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    out.push_back(reading_of(j));
    if (pip) pip->push_back(j.contains("pip") ? reading_of(j["pip"]) : InstallReading{"no answer from pip", {}, {}});
  }
  if (out.size() != wheels.size())
    *error = "the oracle answered " + std::to_string(out.size()) + " of " + std::to_string(wheels.size()) +
             " wheels (exit " + std::to_string(run.exit_code) + "): " + run.err;
  return out;
}

// ---- the crafted cases, class by class -----------------------------------------------------------

bool has(const std::vector<Finding>& fs, const InstallerCase& c) {
  return std::any_of(fs.begin(), fs.end(), [&](const Finding& f) {
    return f.rule == c.rule && f.message.find(c.message) != std::string::npos &&
           (c.control || f.severity == c.severity);
  });
}

// Every case of `klass` gets its finding; every control of it does not.
void check_class(const std::string& klass) {
  size_t cases = 0, controls = 0;
  for (const auto& c : installer_cases()) {
    if (c.klass != klass) continue;
    auto fs = findings_of(c.bytes, c.filename);
    if (c.control) {
      ++controls;
      EXPECT_FALSE(has(fs, c)) << c.label << ": a control, yet " << c.rule << " '" << c.message << "':\n" << dump(fs);
    } else {
      ++cases;
      EXPECT_TRUE(has(fs, c)) << c.label << ": expected " << c.rule << " [" << severity_name(c.severity) << "] '"
                              << c.message << "', got:\n"
                              << dump(fs);
    }
  }
  EXPECT_GT(cases, 0u) << klass;
  EXPECT_GT(controls, 0u) << klass;
}

TEST(InstallerDirectoryness, AttributesWithoutSlashAreFilesAndRefused) {
  check_class("directory-ness");
  // Refused, and still read as the file pip writes: hashed against RECORD like any other.
  for (const auto& c : installer_cases()) {
    if (c.klass != "directory-ness" || c.control) continue;
    WheelFacts f = facts_of(c.bytes, c.filename);
    const EntryFacts* e = f.find_entry("d/run.py");
    ASSERT_NE(e, nullptr) << c.label;
    EXPECT_EQ(e->kind, EntryKind::file) << c.label;
    EXPECT_FALSE(e->sha256.empty()) << c.label << ": " << e->skipped;
  }
}

TEST(InstallerNameDecoding, NamesAreDecodedAsZipfileDoes) { check_class("name decoding"); }
TEST(InstallerFlags, VersionsAndBitsZipfileRefuses) { check_class("flags and versions"); }
TEST(InstallerSymlinks, SymlinkModeFromAnyHost) { check_class("symlinks"); }
TEST(InstallerStoredRecord, StoredEntryHoldingALocalRecord) { check_class("stored local record"); }
TEST(InstallerLineBreaks, EverySplitlinesBreakInNamesAndPth) { check_class("line separators"); }
TEST(InstallerSemantics, WhereInstallersPutEntries) { check_class("installer semantics"); }
TEST(InstallerPlatformPaths, PathsOtherPlatformsCollapse) { check_class("platform paths"); }
TEST(InstallerHarnessFindings, WhatTheMutationsFound) {
  check_class("found by the harness");
  // Each refusal is needed: one of libarchive's readers installs something else (or nothing).
  for (const auto& c : installer_cases()) {
    if (c.klass != "found by the harness" || c.control) continue;
    InstallReading gate = fuzz::wheelcheck_reading(c.bytes, c.filename);
    std::string diff = fuzz::reading_difference(gate, fuzz::libarchive_reading(c.bytes, false), "seekable") +
                       fuzz::reading_difference(gate, fuzz::libarchive_reading(c.bytes, true), "streaming");
    EXPECT_NE(diff, "") << c.label << ": libarchive reads it as wheelcheck does";
  }
}

// The corpus the installer fuzz target replays holds these cases as they are built now.
TEST(InstallerHarnessFindings, RegressionSeedsAreCurrent) {
  fs::path dir = fs::path(WC_SOURCE_DIR) / "fuzz" / "corpus" / "installer";
  size_t found = 0;
  for (const auto& c : installer_cases()) {
    // The mutations' finds, and the wheel pypa/installer loops on (the oracle's time-out found it).
    if (c.klass != "found by the harness" && c.label != "a name beginning with the .data directory's") continue;
    std::string name;
    for (char ch : c.label) name += is_alnum(ch) ? ch : '-';
    fs::path seed = dir / name;
    if (std::getenv("WHEELCHECK_WRITE_SEEDS")) {
      fs::create_directories(dir);
      write_file(seed.string(), fuzz::installer_input(c.filename, c.bytes));
    }
    ASSERT_TRUE(fs::exists(seed)) << seed << " (WHEELCHECK_WRITE_SEEDS=1 writes it)";
    EXPECT_EQ(read_file(seed.string()), fuzz::installer_input(c.filename, c.bytes)) << seed;
    ++found;
  }
  EXPECT_GE(found, 6u);
}

// `wheelcheck inspect --format json` shows each entry's install path beside its sha256: the same
// pairs install_map() gives the harness.
TEST(InstallerDifferential, InspectShowsInstallPaths) {
  InstallerCase c;
  for (auto& x : installer_cases())
    if (x.label == "scripts, data and an entry point") c = x;
  ASSERT_FALSE(c.bytes.empty());
  TempDir d;
  write_file(d.file(c.filename), c.bytes);
  auto r = run_wheelcheck({"inspect", "--format", "json", d.file(c.filename)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> shown;
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& e : j["wheels"][0]["entries"])
    if (e.contains("install_path") && !e["name"].get<std::string>().ends_with("/RECORD"))
      shown[e["install_path"]] = e["sha256"];
  std::map<std::string, std::string> mapped;
  for (auto& [k, f] : install_map(facts_of(c.bytes, c.filename))) mapped[k] = f.sha256;
  EXPECT_EQ(shown, mapped);
  EXPECT_TRUE(shown.count("<scripts>/run") && shown.count("<data>/share/i/x.txt") && shown.count("i/__init__.py"))
      << r.out.substr(0, 2000);
}

// ---- the facts the checks rest on, asked of the real programs ------------------------------------

TEST(InstallerFacts, LineBreaksAreStrSplitlines) {
  auto r = run_command(
      "python3 -c \"print(' '.join(str(c) for c in range(0x110000) if len(('a' + chr(c) + 'b').splitlines()) > 1))\"");
  if (r.exit_code != 0) GTEST_SKIP() << "python3 did not run: " << r.err;
  std::set<uint32_t> python;
  std::istringstream in(r.out);
  for (uint32_t c; in >> c;) python.insert(c);
  ASSERT_FALSE(python.empty());
  // Every code point as UTF-8 between two letters: a break exactly where Python breaks.
  for (uint32_t c = 0; c < 0x110000; ++c) {
    if (c >= 0xd800 && c < 0xe000) continue;
    std::string u;
    if (c < 0x80)
      u = std::string(1, char(c));
    else if (c < 0x800)
      u = {char(0xc0 | c >> 6), char(0x80 | (c & 0x3f))};
    else if (c < 0x10000)
      u = {char(0xe0 | c >> 12), char(0x80 | (c >> 6 & 0x3f)), char(0x80 | (c & 0x3f))};
    else
      u = {char(0xf0 | c >> 18), char(0x80 | (c >> 12 & 0x3f)), char(0x80 | (c >> 6 & 0x3f)), char(0x80 | (c & 0x3f))};
    bool ours = python_splitlines("a" + u + "b").size() > 1;
    EXPECT_EQ(ours, python.count(c) > 0) << "U+" << std::hex << c;
  }
}

TEST(InstallerFacts, Cp437IsPythons) {
  auto r = run_command(
      "python3 -c \"import sys; sys.stdout.buffer.write(bytes(range(128, 256)).decode('cp437').encode('utf-8'))\"");
  if (r.exit_code != 0) GTEST_SKIP() << "python3 did not run: " << r.err;
  std::string high;
  for (int b = 128; b < 256; ++b) high += char(b);
  EXPECT_EQ(cp437_to_utf8(high), r.out);
  EXPECT_EQ(cp437_to_utf8("plain/ascii.py"), "plain/ascii.py");
}

// A .pth line hidden behind a lone \r, \f or U+2028: site.py (3.13+, which splits with
// str.splitlines()) runs it, and WC209 counts it. Asked of WHEELCHECK_NEW_PYTHON, else the
// newest Python on PATH.
TEST(InstallerFacts, PthLinesAreSiteLines) {
  std::string py;
  const char* given = std::getenv("WHEELCHECK_NEW_PYTHON");
  for (std::string p : {std::string(given ? given : ""), std::string("python3.14"), std::string("python3.13")})
    if (!p.empty() && run_command(shell_quote(p) + " -c pass >/dev/null 2>&1").exit_code == 0) {
      py = shell_quote(p);
      break;
    }
  if (py.empty())
    GTEST_SKIP() << "no python3.13 or newer on PATH (site.py splits .pth files with splitlines from 3.13)";
  TempDir d;
  for (std::string brk : {"\r", "\f", "\xe2\x80\xa8", "\x1d"}) {
    std::string pth = "r" + brk + "import sys; sys.stdout.write('RAN')\n";
    write_file(d.file("r-hook.pth"), std::vector<uint8_t>(pth.begin(), pth.end()));
    auto r = run_command(py + " -S -c " + shell_quote("import site; site.addsitedir('" + d.path() + "')"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "RAN") << "site.py did not run the line after " << escape_for_display(brk);
    auto fs = findings_of(
        bytes_of(raw_zip(raw_wheel_entries("r", {raw_file("r/__init__.py", ""), raw_file("r-hook.pth", pth)}))),
        "r-1.0-py3-none-any.whl");
    EXPECT_TRUE(says(fs, "WC209 [warning] r-hook.pth: 1 'import' line (first at line 2)"))
        << escape_for_display(brk) << ":\n"
        << dump(fs);
  }
}

// Which "made by" hosts unzip makes a symlink for: every one of them must be a symlink to
// wheelcheck (WC402).
TEST(InstallerFacts, UnzipSymlinkHostsAreSymlinks) {
  if (run_command("unzip -v >/dev/null 2>&1").exit_code != 0) GTEST_SKIP() << "no unzip";
  TempDir d;
  size_t links = 0;
  for (uint16_t host = 0; host < 32; ++host) {
    RawEntry e = raw_file("link", "target");
    e.made_by = uint16_t(host << 8 | 20), e.unix_mode = 0120777;
    std::string zip = d.file("h" + std::to_string(host) + ".zip"), out = d.file("x" + std::to_string(host));
    write_file(zip, bytes_of(raw_zip({e})));
    run_command("unzip -qq -o " + shell_quote(zip) + " -d " + shell_quote(out) + " >/dev/null 2>&1");
    if (!fs::is_symlink(out + "/link")) continue;
    ++links;
    MemorySource src("h.zip", bytes_of(raw_zip({e})));
    ZipIndex idx = read_zip_index(src);
    ASSERT_EQ(idx.entries.size(), 1u);
    EXPECT_EQ(idx.entries[0].kind, EntryKind::symlink) << "unzip makes a symlink of host " << host;
  }
  EXPECT_GE(links, 1u) << "unzip made no symlink at all (host 3 is Unix)";
}

// The harness' real installer sees what the refusals are about: zipfile installs the entry with
// directory attributes as a file, decodes the unflagged name as cp437, refuses the name whose
// local flag differs; the streaming libarchive reader finds an entry inside the STORED one.
TEST(InstallerFacts, TheRealReadersReadTheRefusedCasesDifferently) {
  auto find = [](const std::string& label) {
    for (auto& c : installer_cases())
      if (c.label == label) return c;
    throw std::runtime_error("no case " + label);
  };
  auto stored = find("a descriptor and a local record inside a STORED entry");
  auto streaming = fuzz::libarchive_reading(stored.bytes, true),
       seekable = fuzz::libarchive_reading(stored.bytes, false);
  EXPECT_NE(fuzz::reading_difference(seekable, streaming, "streaming"), "") << "the two libarchive readers agree";
  if (!oracle().skip.empty()) GTEST_SKIP() << oracle().skip;
  std::string error;
  auto dos = find("DOS directory attribute on a file name"), cp437 = find("non-ASCII name without the UTF-8 flag"),
       local = find("UTF-8 flag in the central directory only");
  auto loops = find("a name beginning with the .data directory's");
  auto r = installer_readings({{dos.filename, dos.bytes},
                               {cp437.filename, cp437.bytes},
                               {local.filename, local.bytes},
                               {loops.filename, loops.bytes}},
                              &error);
  ASSERT_EQ(r.size(), 4u) << error;
  EXPECT_NE(r[3].refused.find("loops"), std::string::npos) << "installer 0.7.0 finishes: " << r[3].refused;
  EXPECT_TRUE(r[0].files.count("d/run.py")) << "zipfile installs the entry as a file: " << r[0].refused;
  EXPECT_TRUE(r[1].files.count("n/caf\xc3\xa9.py")) << "zipfile decodes cp437: " << r[1].refused;
  EXPECT_NE(r[2].refused.find("differ"), std::string::npos) << "zipfile refuses the entry: " << r[2].refused;
}

// ---- the differential harness ---------------------------------------------------------------------

struct Sample {
  std::string label;
  std::string filename;
  std::vector<uint8_t> bytes;
};

struct Verdicts {
  size_t refused = 0, compared = 0, with_installer = 0;
  std::vector<std::string> disagreements;
};

// wheelcheck against libarchive's two readers here, against zipfile + installer in one batch.
Verdicts compare(const std::vector<Sample>& samples, bool with_installer, size_t installer_cap = SIZE_MAX,
                 bool with_libarchive = true) {
  Verdicts v;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> batch;
  std::vector<std::pair<const Sample*, InstallReading>> passed;
  for (const auto& s : samples) {
    InstallReading gate = fuzz::wheelcheck_reading(s.bytes, s.filename);
    if (!gate.refused.empty()) {
      ++v.refused;
      continue;
    }
    ++v.compared;
    for (bool streaming : {false, true}) {
      if (!with_libarchive) break;
      std::string diff = fuzz::reading_difference(gate, fuzz::libarchive_reading(s.bytes, streaming),
                                                  streaming ? "libarchive (streaming)" : "libarchive (seekable)");
      if (!diff.empty()) v.disagreements.push_back(s.label + " (" + s.filename + "):\n" + diff);
    }
    if (with_installer && batch.size() < installer_cap) {
      batch.emplace_back(s.filename, s.bytes);
      passed.emplace_back(&s, std::move(gate));
    }
  }
  if (batch.empty()) return v;
  std::string error;
  std::vector<InstallReading> pip;
  auto readings = installer_readings(batch, &error, &pip);
  if (!error.empty()) v.disagreements.push_back("zipfile + installer: " + error);
  for (size_t i = 0; i < readings.size() && i < passed.size() && i < pip.size(); ++i) {
    ++v.with_installer;
    // A script whose "#!python" line pip rewrote is compared by where it lands alone.
    InstallReading gate_for_pip = passed[i].second;
    for (const auto& [key, digest] : pip[i].files)
      if (digest == "rewritten" && gate_for_pip.files.count(key)) gate_for_pip.files[key] = digest;
    std::string diff = fuzz::reading_difference(passed[i].second, readings[i], "zipfile + installer") +
                       fuzz::reading_difference(gate_for_pip, pip[i], "pip");
    if (!diff.empty())
      v.disagreements.push_back(passed[i].first->label + " (" + passed[i].first->filename + "):\n" + diff);
  }
  return v;
}

std::string report(const std::vector<std::string>& ds) {
  std::string out;
  for (size_t i = 0; i < ds.size() && i < 10; ++i) out += ds[i] + "\n";
  return out + (ds.size() > 10 ? std::to_string(ds.size() - 10) + " more\n" : "");
}

// The comparison itself: every path on either side, every digest that differs, a refusal and a
// note; agreement is the empty string.
TEST(InstallerDifferential, DifferenceNamesEveryPath) {
  InstallReading gate{"", {{"a.py", "A"}, {"b.py", "B"}, {"<scripts>/run", "R"}}, {}};
  InstallReading same = gate, other{"", {{"a.py", "A"}, {"b.py", "X"}, {"c.py", "C"}}, {"a link"}};
  EXPECT_EQ(fuzz::reading_difference(gate, same, "zipfile"), "");
  EXPECT_EQ(fuzz::reading_difference(gate, other, "zipfile"),
            "zipfile: a link\n<scripts>/run: wheelcheck R, zipfile absent\nb.py: wheelcheck B, zipfile X\n"
            "c.py: wheelcheck absent, zipfile C\n");
  EXPECT_EQ(fuzz::reading_difference(gate, InstallReading{"BadZipFile: x", {}, {}}, "zipfile"),
            "zipfile refuses the wheel: BadZipFile: x\n");
}

TEST(InstallerDifferential, CraftedArchives) {
  std::vector<Sample> samples;
  size_t controls = 0;
  for (auto& c : installer_cases()) {
    controls += c.control;
    samples.push_back({c.klass + ": " + c.label, c.filename, c.bytes});
  }
  const bool python = oracle().skip.empty();
  Verdicts v = compare(samples, python);
  EXPECT_TRUE(v.disagreements.empty()) << report(v.disagreements);
  // The controls that pass really were compared (a harness that compares nothing cannot fail).
  EXPECT_GE(v.compared, controls / 2) << "compared " << v.compared << " of " << samples.size();
  if (!python) GTEST_SKIP() << "zipfile + installer not asked: " << oracle().skip;
  EXPECT_EQ(v.with_installer, v.compared);
}

// Where the headers of each entry are, for mutations that keep the two copies of a field alike.
struct Records {
  std::vector<size_t> central, local;
};

Records records_of(const std::vector<uint8_t>& z) {
  Records r;
  auto u16 = [&](size_t at) { return at + 2 <= z.size() ? size_t(z[at] | z[at + 1] << 8) : 0; };
  auto u32 = [&](size_t at) { return at + 4 <= z.size() ? size_t(u16(at) | u16(at + 2) << 16) : 0; };
  if (z.size() < 22) return r;
  size_t eocd = z.size() - 22;
  while (eocd > 0 && u32(eocd) != 0x06054b50) --eocd;
  size_t at = u32(eocd + 16);
  for (size_t n = u16(eocd + 10); n-- > 0 && u32(at) == 0x02014b50;) {
    size_t local = u32(at + 42);
    if (local + 30 <= z.size() && u32(local) == 0x04034b50) {
      r.central.push_back(at);
      r.local.push_back(local);
    }
    at += 46 + u16(at + 28) + u16(at + 30) + u16(at + 32);
  }
  return r;
}

// One to three mutations of the fields installers act on (flags, versions, host, attributes, name
// bytes, method: in both headers unless the mutation is about their disagreeing), or of any byte.
std::string mutate(std::vector<uint8_t>& z, std::mt19937& rng) {
  Records r = records_of(z);
  std::string what;
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  // Bounds-checked writes: an earlier mutation may have moved a length field.
  auto at = [&](size_t i) -> uint8_t& {
    static uint8_t sink;
    return i < z.size() ? z[i] : sink;
  };
  auto get16 = [&](size_t i) { return uint16_t(at(i) | at(i + 1) << 8); };
  auto put16 = [&](size_t i, uint16_t v) { at(i) = uint8_t(v), at(i + 1) = uint8_t(v >> 8); };
  for (size_t k = 1 + pick(3); k-- > 0;) {
    if (r.central.empty() || pick(8) == 0) {
      size_t i = pick(z.size());
      z[i] = uint8_t(pick(256));
      what += "byte " + std::to_string(i) + "; ";
      continue;
    }
    size_t i = pick(r.central.size()), c = r.central[i], l = r.local[i];
    const bool both = pick(4) != 0;
    switch (pick(8)) {
      case 0: {  // a general-purpose bit
        uint16_t bit = uint16_t(1u << pick(16));
        put16(c + 8, uint16_t(get16(c + 8) ^ bit));
        if (both) put16(l + 6, uint16_t(get16(l + 6) ^ bit));
        what += "flag bit " + std::to_string(__builtin_ctz(bit)) + (both ? "" : " (central only)") + "; ";
        break;
      }
      case 1: {
        static const uint16_t versions[] = {10, 20, 45, 62, 63, 64, 99, 0x314};
        uint16_t v = versions[pick(std::size(versions))];
        put16(c + 6, v);
        if (both) put16(l + 4, v);
        what += "version needed " + std::to_string(v) + "; ";
        break;
      }
      case 2:
        at(c + 5) = uint8_t(pick(32));
        what += "host " + std::to_string(at(c + 5)) + "; ";
        break;
      case 3: {  // the file type in the mode, or the DOS directory bit
        static const uint16_t types[] = {0, 0010000, 0020000, 0040000, 0060000, 0100000, 0120000, 0140000};
        if (pick(2)) {
          put16(c + 40, uint16_t(types[pick(std::size(types))] | 0644));
          what += "mode; ";
        } else {
          at(c + 38) ^= 0x10;
          what += "DOS directory bit; ";
        }
        break;
      }
      case 4: {  // a byte of the name, in both headers
        size_t len = get16(c + 28);
        if (!len) break;
        static const uint8_t bytes[] = {0x82, 0x85, '\r', '\f', '/',  '.',  ':', ' ',
                                        'A',  0xc2, 0xe2, 0x80, 0xa8, '\\', 0};
        size_t p = pick(len);
        uint8_t b = pick(4) ? bytes[pick(std::size(bytes))] : uint8_t(pick(256));
        at(c + 46 + p) = b;
        if (both) at(l + 30 + p) = b;
        what += "name byte " + std::to_string(p) + " = " + std::to_string(b) + "; ";
        break;
      }
      case 6: {  // CRC or a size, in both headers: zero, one more, or another field's value
        static const size_t central_at[] = {16, 20, 24}, local_at[] = {14, 18, 22};
        size_t f = pick(3), from = pick(3);
        uint32_t v =
            pick(3) == 0 ? 0 : uint32_t(get16(c + central_at[from]) | get16(c + central_at[from] + 2) << 16) + pick(2);
        put16(c + central_at[f], uint16_t(v)), put16(c + central_at[f] + 2, uint16_t(v >> 16));
        if (both) put16(l + local_at[f], uint16_t(v)), put16(l + local_at[f] + 2, uint16_t(v >> 16));
        what += std::string(f == 0 ? "CRC" : f == 1 ? "compressed size" : "size") + " " + std::to_string(v) + "; ";
        break;
      }
      case 7:  // the DOS attribute byte (read-only, hidden, system, volume label, directory, archive)
        at(c + 38) = uint8_t(pick(256));
        what += "DOS attributes " + std::to_string(at(c + 38)) + "; ";
        break;
      default: {
        static const uint16_t methods[] = {0, 8, 9, 12, 14, 93, 95, 99};
        uint16_t m = methods[pick(std::size(methods))];
        put16(c + 10, m);
        if (both) put16(l + 8, m);
        what += "method " + std::to_string(m) + "; ";
      }
    }
  }
  return what;
}

double diff_seconds() {
  const char* s = std::getenv("WHEELCHECK_DIFF_SECONDS");
  double v = s ? std::atof(s) : 3.0;
  return v > 0 ? v : 3.0;
}

TEST(InstallerDifferential, Mutations) {
  auto cases = installer_cases();
  // WHEELCHECK_DIFF_SEED replays a run (each failure names its seed).
  const char* given = std::getenv("WHEELCHECK_DIFF_SEED");
  const uint32_t seed = given ? uint32_t(std::strtoul(given, nullptr, 10)) : std::random_device{}();
  std::mt19937 rng(seed);
  const double seconds = diff_seconds();
  const auto start = std::chrono::steady_clock::now();
  std::vector<Sample> mutants;
  std::set<std::vector<uint8_t>> seen;
  size_t made = 0;
  Verdicts total;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    const auto& c = cases[std::uniform_int_distribution<size_t>(0, cases.size() - 1)(rng)];
    Sample s{"", c.filename, c.bytes};
    s.label = c.label + " + " + mutate(s.bytes, rng);
    ++made;
    if (!seen.insert(s.bytes).second) continue;
    Verdicts v = compare({s}, false);
    total.refused += v.refused, total.compared += v.compared;
    total.disagreements.insert(total.disagreements.end(), v.disagreements.begin(), v.disagreements.end());
    if (v.compared) mutants.push_back(std::move(s));
  }
  // The mutants wheelcheck passed, once more, through zipfile + installer in one batch.
  size_t with_installer = 0;
  if (oracle().skip.empty() && !mutants.empty()) {
    // pip installs for real (about 30 ms a wheel): the budget sets how many go that far.
    Verdicts v = compare(mutants, true, size_t(60 * seconds), false);
    with_installer = v.with_installer;
    total.disagreements.insert(total.disagreements.end(), v.disagreements.begin(), v.disagreements.end());
  }
  std::cout << "[ mutations ] " << made << " in " << seconds << " s (seed " << seed << "): " << total.refused
            << " refused by wheelcheck, " << total.compared << " passed and compared with libarchive, "
            << with_installer << " with zipfile + installer and with pip"
            << (oracle().skip.empty() ? "" : " (not asked: " + oracle().skip + ")") << "\n";
  if (const char* keep = std::getenv("WHEELCHECK_DIFF_SAVE"))
    for (size_t i = 0; i < mutants.size(); ++i)
      for (const auto& d : total.disagreements)
        if (d.starts_with(mutants[i].label)) {
          fs::create_directories(keep);
          write_file(std::string(keep) + "/disagreement-" + std::to_string(i),
                     fuzz::installer_input(mutants[i].filename, mutants[i].bytes));
          break;
        }
  EXPECT_GT(made, 0u);
  EXPECT_TRUE(total.disagreements.empty()) << "seed " << seed << ":\n" << report(total.disagreements);
}

}  // namespace
}  // namespace wc
