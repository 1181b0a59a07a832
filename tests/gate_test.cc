// The gate cannot be fooled (issue 16): every archive that two reasonable readers could read
// differently is refused, bombs are refused from the central directory before anything is
// inflated, and each case is a crafted archive built here with its exact finding. The whole table
// also runs as one `-j 2` batch through the CLI, where every wheel keeps its own verdict; Python's
// zipfile (what pip uses) is asked what it sees where the point is that it sees something else.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "support/raw_zip.h"
#include "support/test_support.h"
#include "util/parse.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using namespace wc::testing;

struct GateCase {
  std::string label;
  std::function<std::string()> make;  // the archive's bytes
  std::string rule;                   // the finding it must produce
  std::string message;                // a substring of that finding's message
  Severity severity = Severity::error;
};

std::string wheel_name(const std::string& project) { return project + "-1.0-py3-none-any.whl"; }

// A valid wheel of `files`, laid out plainly.
std::string plain(const std::string& project, const std::vector<RawEntry>& files) {
  return raw_zip(raw_wheel_entries(project, files));
}

std::string second_end_record_in_comment() {
  auto entries = raw_wheel_entries("c", {raw_file("c/__init__.py", "")});
  Laid l = lay_out(entries);
  // The comment holds another end record that names the same directory but claims one entry fewer.
  std::string fake = end_record(entries.size() - 1, l.central.size(), l.locals.size());
  return l.locals + l.central + end_record(entries.size(), l.central.size(), l.locals.size(), "x" + fake + "y");
}

// A local record nothing in the central directory lists, between two listed ones (unzip -t and
// streaming readers see it; pip does not).
std::string unlisted_local_record() {
  auto entries = raw_wheel_entries("g", {raw_file("g/__init__.py", "")});
  RawEntry ghost = raw_file("g/ghost.py", "import os\n");
  std::string locals, central;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i == 1) locals += local_record(ghost);
    central += central_record(entries[i], locals.size());
    locals += local_record(entries[i]);
  }
  return locals + central + end_record(entries.size(), central.size(), locals.size());
}

std::string plain_gap() {
  auto entries = raw_wheel_entries("p", {raw_file("p/__init__.py", "")});
  std::string locals, central;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i == 1) locals += std::string(40, '\0');
    central += central_record(entries[i], locals.size());
    locals += local_record(entries[i]);
  }
  return locals + central + end_record(entries.size(), central.size(), locals.size());
}

std::string unicode_path_elsewhere() {
  RawEntry f = raw_file("u/__init__.py", "");
  f.central_extra = f.local_extra = unicode_path_extra(f.name, "../../../tmp/evil.py");
  return plain("u", {f});
}

std::string nfc_nfd_pair() {
  // "é" precomposed (U+00E9) and decomposed (e + U+0301).
  return plain("n", {raw_file("n/caf\xc3\xa9.py", "a = 1\n"), raw_file("n/cafe\xcc\x81.py", "a = 2\n")});
}

std::string unicode_case_pair() {
  // "Ärger.py" and "ärger.py", both NFC: one file on APFS and NTFS (Unicode case folding).
  return plain("n", {raw_file("n/\xc3\x84rger.py", "a = 1\n"), raw_file("n/\xc3\xa4rger.py", "a = 2\n")});
}

std::string wheel_version_twice() {
  auto entries = raw_wheel_entries("w", {raw_file("w/__init__.py", "")});
  for (auto& e : entries)
    if (e.name.ends_with("/WHEEL"))
      e = raw_file(
          e.name, "Wheel-Version: 1.0\nGenerator: raw\nRoot-Is-Purelib: true\nTag: py3-none-any\nWheel-Version: 2.0\n");
  // RECORD must list the new WHEEL's hash: rebuild the wheel's RECORD over the edited files.
  std::vector<RawEntry> files(entries.begin(), entries.end() - 1);
  std::string record;
  for (const auto& e : files)
    record += csv_field(e.name) + "," + sha256_record(e.content) + "," + std::to_string(e.content.size()) + "\n";
  record += "w-1.0.dist-info/RECORD,,\n";
  files.push_back(raw_file("w-1.0.dist-info/RECORD", record));
  return raw_zip(files);
}

std::string directory_not_at_end_record() {
  auto entries = raw_wheel_entries("e", {raw_file("e/__init__.py", "")});
  Laid l = lay_out(entries);
  // 8 bytes between the directory and the end record: Python shifts every offset by 8.
  return l.locals + l.central + std::string(8, '\0') + end_record(entries.size(), l.central.size(), l.locals.size());
}

// `n` entries of 63 MiB of zeros (one compressed stream reused): every entry under the per-entry
// limit, the wheel far over 64 MiB at more than 50:1.
std::string many_small_bombs(int n) {
  std::string zeros(63u << 20, '\0');
  RawEntry proto = raw_file("", zeros, true);
  std::vector<RawEntry> files;
  for (int i = 0; i < n; ++i) {
    RawEntry e = proto;
    e.content.clear();  // the data, CRC and sizes stay
    e.name = "z/" + std::to_string(i) + ".bin";
    files.push_back(std::move(e));
  }
  // RECORD lists them with the right hash (computed once).
  std::string hash = sha256_record(zeros), record;
  for (const auto& f : files) record += f.name + "," + hash + "," + std::to_string(zeros.size()) + "\n";
  auto meta = raw_wheel_entries("z", {});
  meta.pop_back();
  for (const auto& m : meta)
    record += m.name + "," + sha256_record(m.content) + "," + std::to_string(m.content.size()) + "\n";
  record += "z-1.0.dist-info/RECORD,,\n";
  files.insert(files.end(), meta.begin(), meta.end());
  files.push_back(raw_file("z-1.0.dist-info/RECORD", record));
  std::string out, cd;
  for (const auto& f : files) {
    cd += central_record(f, out.size());
    out += local_record(f);
  }
  return out + cd + end_record(files.size(), cd.size(), out.size());
}

std::vector<GateCase> cases() {
  return {
      {"zip64 locator pointing at a hidden record", hidden_zip64_wheel, "WC404",
       "does not end where the locator starts"},
      {"second end record in the comment", second_end_record_in_comment, "WC404",
       "a second end of central directory record"},
      {"local record nothing lists", unlisted_local_record, "WC404", "that the central directory does not list"},
      {"bytes that belong to no entry", plain_gap, "WC404", "40 bytes at offset"},
      {"data descriptor that lies", [] { return descriptor_wheel(true); }, "WC404", "the data descriptor (CRC-32"},
      {"unicode path extra field", unicode_path_elsewhere, "WC401", "names '../../../tmp/evil.py'"},
      {"NFC/NFD pair", nfc_nfd_pair, "WC307", "only in Unicode normalisation", Severity::warning},
      {"case pair outside ASCII", unicode_case_pair, "WC307", "differs only in case from 'n/\xc3\x84rger.py'",
       Severity::warning},
      {"Wheel-Version twice", wheel_version_twice, "WC104", "Wheel-Version is given 2 times with different values"},
      {"directory does not end at the end record", directory_not_at_end_record, "WC404",
       "does not end where the end record starts"},
      {"overlapping entries (Fifield)", [] { return overlapping_bomb(250, 60u << 20); }, "WC403",
       "250 entries share compressed data"},
      {"many small entries, a bomb together", [] { return many_small_bombs(4); }, "WC403",
       "over the limit of 50:1 for wheels that inflate to over 64 MiB"},
  };
}

bool has(const std::vector<Finding>& fs, const GateCase& c) {
  return std::any_of(fs.begin(), fs.end(), [&](const Finding& f) {
    return f.rule == c.rule && f.severity == c.severity && f.message.find(c.message) != std::string::npos;
  });
}

TEST(Gate, EachArchiveGetsItsExactFinding) {
  for (const auto& c : cases()) {
    std::string name = wheel_name(c.label.substr(0, 1) == "N" ? "n" : "x");
    auto fs = findings_of(bytes_of(c.make()), name);
    EXPECT_TRUE(has(fs, c)) << c.label << ": expected " << c.rule << " '" << c.message << "', got:\n" << dump(fs);
  }
}

TEST(Gate, ControlsPass) {
  // The same shapes done right: no finding from the structure checks.
  for (auto [label, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"honest descriptor", descriptor_wheel(false)},
           {"plain", plain("x", {raw_file("x/__init__.py", "x = 1\n", true)})}}) {
    auto fs = findings_of(bytes_of(bytes), wheel_name(label == "plain" ? "x" : "d"));
    EXPECT_FALSE(has_rule(fs, "WC404")) << label << ":\n" << dump(fs);
    EXPECT_FALSE(has_rule(fs, "WC401")) << label << ":\n" << dump(fs);
  }
}

// Python's zipfile (pip's reader) sees the attacker's file in the ZIP64 case: proof that the
// refusal is needed, and that the archive really is read two ways.
TEST(Gate, PythonReadsTheZip64CaseDifferently) {
  TempDir d;
  std::string path = d.file(wheel_name("h"));
  write_file(path, bytes_of(hidden_zip64_wheel()));
  auto r =
      run_command("python3 -c \"import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); print(sorted(z.namelist()))\" " +
                  shell_quote(path));
  if (r.exit_code != 0) GTEST_SKIP() << "python3 zipfile could not run: " << r.err;
  EXPECT_NE(r.out.find("h/blob.bin"), std::string::npos) << "Python reads the real directory: " << r.out;
}

TEST(Gate, BombsAreNeverInflated) {
  for (auto [label, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"overlapping", overlapping_bomb(250, 60u << 20)}, {"many", many_small_bombs(4)}}) {
    WheelFacts f = facts_of(bytes_of(bytes), wheel_name(label == "many" ? "z" : "b"));
    uint64_t inflated = 0;
    for (const auto& e : f.entries)
      if (e.name.ends_with(".bin")) {
        inflated += e.bytes_read;
        EXPECT_FALSE(e.skipped.empty()) << label << ": " << e.name;
      }
    EXPECT_EQ(inflated, 0u) << label;
  }
  // The overlapping case is also WC404: the entries' data overlap.
  auto fs = findings_of(bytes_of(overlapping_bomb(20, 1u << 20)), wheel_name("b"));
  EXPECT_TRUE(std::any_of(fs.begin(), fs.end(), [](const Finding& f) {
    return f.rule == "WC404" && f.message.find("entry data overlaps the entry") != std::string::npos;
  })) << dump(fs);
}

TEST(Gate, OneBatchTwoWorkers) {
  TempDir d;
  auto all = cases();
  for (size_t i = 0; i < all.size(); ++i) {
    std::filesystem::create_directories(d.file(std::to_string(i)));
    write_file(d.file(std::to_string(i) + "/" + wheel_name("x")), bytes_of(all[i].make()));
  }
  auto r = run_wheelcheck({"check", "-j", "2", "-q", "--format", "json", d.path()});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["wheels"].size(), all.size());
  for (const auto& w : j["wheels"]) {
    std::string path = w["path"];
    auto folder = parse_decimal(std::filesystem::path(path).parent_path().filename().string(), all.size() - 1);
    ASSERT_TRUE(folder) << path;
    size_t i = static_cast<size_t>(*folder);
    bool found = false;
    for (const auto& f : w["findings"])
      found |= f["rule"] == all[i].rule && f["message"].get<std::string>().find(all[i].message) != std::string::npos;
    EXPECT_TRUE(found) << all[i].label << ": " << w.dump(1);
  }
}

}  // namespace
}  // namespace wc
