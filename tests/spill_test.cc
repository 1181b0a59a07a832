// A run's spill file (facts/spill.h): what the install-set rules read of each wheel is written out
// once its own rules have run and read back, field for field, when a set that holds it is judged.
// A record read back is the record written (every field: the sizes in spill.cc stop the build when
// a struct grows a field the spill does not carry); a damaged record is an error, never a crash or
// a huge allocation; and a run judges the same with and without parking its wheels.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "binary/binary_facts.h"
#include "facts/analyze.h"
#include "facts/spill.h"
#include "io/targets.h"
#include "pipeline/check.h"
#include "policy/policy.h"
#include "support/fixtures.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::WheelBuilder;

// A g++ library with versioned definitions (f@V_1 hidden, f@@V_2), C++ namespaces and an import.
std::vector<uint8_t> versioned_library(testing::TempDir& dir) {
  return testing::gxx_versioned_library(
      dir,
      "namespace c10 { int first(int x) { return x + 1; } }\n"
      "extern \"C\" { int f_old(void) { return 1; } int f_new(void) { return 2; } int puts(const char*);\n"
      "int talk(void) { return puts(\"hi\"); } }\n"
      "__asm__(\".symver f_old,f@V_1\"); __asm__(\".symver f_new,f@@V_2\");\n",
      "-Wl,-soname,libl.so");
}

// Facts with every field of an entry and of a binary set to something other than its default.
WheelFacts full_facts(const std::vector<uint8_t>& elf) {
  WheelFacts f;
  EntryFacts e;
  e.name = "pkg/lib/libl.so";
  e.kind = EntryKind::symlink;
  e.unix_mode = 0100755;
  e.method = 8;
  e.size = 12345;
  e.compressed_size = 678;
  e.bytes_read = 12000;
  e.sha256 = "sha256=abc";
  e.other_digests = {{"sha384", "x"}, {"sha512", "y"}};
  e.read_error = "CRC";
  e.skipped = "over the limit";
  e.magic = "elf";
  e.version_strings = {"3.0.7", "1.2"};
  f.entries.push_back(e);
  e.name = "pkg/__init__.py";
  e.kind = EntryKind::file;
  f.entries.push_back(e);

  BinaryFacts b;
  parse_elf_image(elf.data(), elf.size(), b);
  b.path = "pkg/lib/libl.so";
  b.interpreter = "/lib64/ld-linux-x86-64.so.2";
  b.needed = {"libc.so.6", "libm.so.6"};
  b.rpath = {"$ORIGIN"};
  b.runpath = {"$ORIGIN/../lib"};
  b.version_needs = {{"libc.so.6", {"GLIBC_2.2.5", "GLIBC_2.34"}}};
  b.version_defs = {"V_1", "V_2"};
  b.undefined_symbols = {"PyList_New"};
  b.undefined_symbols_read = true;
  b.unreachable_exports = 3;
  b.unreachable_shown = {"lost"};
  b.module_inits = {"PyInit_l"};
  b.cxx_abi["c10"] = CxxAbiCount{7, 2, {"_ZN3c103oldESs"}};
  b.cxx_abi_read = true;
  b.python_dll_imports = {{"python3.dll", {"Py_None"}}};
  b.x86_isa_level = 3;
  b.exec_stack = true;
  b.libc = "glibc";
  MachOSlice sl;
  sl.arch = "arm64";
  sl.cputype = 0x0100000c;
  sl.minos = "11.0";
  sl.sdk = "14.2";
  sl.minos_major = 11;
  sl.minos_minor = 1;
  sl.build_platforms = {1, 6};
  sl.dylibs = {"@rpath/libc10.dylib", "/usr/lib/libSystem.B.dylib"};
  sl.rpaths = {"@loader_path"};
  sl.weak_dylibs = {"/usr/lib/libweak.dylib"};
  sl.install_name = "@rpath/libl.dylib";
  sl.reexported_dylibs = {"@rpath/libre.dylib"};
  sl.imports = {{"_foo", 1, true}, {"_bar", MachOImport::flat_lookup, false}};
  sl.exports = {"__ZN3c104keptEv", "_baz"};
  sl.imports_read = sl.exports_read = true;
  MachOSlice hashed = sl;
  hashed.hash_exports();
  b.slices = {sl, hashed};
  b.dlls = {"KERNEL32.dll"};
  b.dll_imports = {{"KERNEL32.dll", {"CreateFileW", "#12"}}};
  b.dll_delay_imports = {{"nvcuda.dll", {"cuInit"}}};
  b.pe_exports = {"PyInit_l", "#3"};
  b.pe_forwarders = {{"Alias", "OTHER.real"}};
  b.pe_exports_read = true;
  FatbinEntry fe;
  fe.kind = FatbinEntry::ptx;
  fe.sm = 90;
  fe.suffix = "a";
  fe.version_major = 8;
  fe.version_minor = 4;
  fe.compression = "zstd";
  fe.payload_size = 10;
  fe.uncompressed_size = 20;
  fe.flags = 0x11;
  fe.offset = 4096;
  fe.container = 1;
  fe.cubin_sm = 90;
  fe.toolkit = "12.4";
  fe.has_kernels = false;
  b.fatbin.containers = 2;
  b.fatbin.container_ranges = {{0, 100}, {4096, 200}};
  b.fatbin.entries = {fe};
  b.hip.targets = {"gfx90a:xnack-"};
  b.hip.compression = "zstd";
  b.hip.error = "short";
  b.cuda_toolkit = "12.4";
  b.errors = {"broken"};
  b.warnings = {"odd"};
  b.headers_only = true;
  f.binaries.push_back(b);
  BinaryFacts slim = b;  // as keep_for_install_sets leaves it
  slim.symbols = b.symbols->slimmed();
  f.binaries.push_back(slim);
  f.reindex();
  return f;
}

TEST(Spill, ARecordReadBackIsTheRecordWritten) {
  testing::TempDir dir;
  auto elf = versioned_library(dir);
  WheelFacts f = full_facts(elf);
  ASSERT_TRUE(f.binaries[0].symbols && f.binaries[1].symbols && f.binaries[1].symbols->slim());
  const std::string record = spill_record(f);
  WheelFacts back;
  back.path = "kept.whl";
  read_spill_record(record, back);
  EXPECT_EQ(back.path, "kept.whl");  // only the entries and the binaries are the record's
  EXPECT_EQ(spill_record(back), record);
  ASSERT_EQ(back.entries.size(), 2u);
  ASSERT_EQ(back.binaries.size(), 2u);
  for (size_t k = 0; k < 2; ++k) EXPECT_EQ(binary_to_json(back.binaries[k]), binary_to_json(f.binaries[k])) << k;
  const EntryFacts& e = back.entries[0];
  EXPECT_EQ(e.other_digests.at("sha512"), "y");
  EXPECT_EQ(e.kind, EntryKind::symlink);
  EXPECT_EQ(e.version_strings, (std::vector<std::string>{"3.0.7", "1.2"}));
  ASSERT_NE(back.find_entry("pkg/__init__.py"), nullptr);  // the name index is rebuilt
  EXPECT_EQ(back.find_entry("pkg/__init__.py")->kind, EntryKind::file);
  const BinaryFacts& b = back.binaries[0];
  EXPECT_EQ(b.cxx_abi.at("c10").pre_examples, (std::vector<std::string>{"_ZN3c103oldESs"}));
  EXPECT_EQ(b.python_dll_imports.at("python3.dll"), (std::vector<std::string>{"Py_None"}));
  EXPECT_EQ(b.fatbin.entries.at(0).cubin_sm, std::optional<uint32_t>(90));
  EXPECT_EQ(b.fatbin.entries.at(0).has_kernels, std::optional<bool>(false));
  EXPECT_EQ(b.slices.at(0).imports.at(1).ordinal, MachOImport::flat_lookup);
  EXPECT_TRUE(b.slices.at(1).exports_hashed);
  EXPECT_TRUE(b.slices.at(1).exports_name("_baz"));
  EXPECT_FALSE(b.slices.at(1).exports_name("_qux"));
  EXPECT_EQ(b.slices.at(1).export_namespaces(), f.binaries[0].slices.at(1).export_namespaces());
  // The symbol tables, whole and slimmed, answer every name as before (and an unknown one alike).
  for (size_t k = 0; k < 2; ++k) {
    const DynamicSymbols& was = *f.binaries[k].symbols;
    const DynamicSymbols& now = *back.binaries[k].symbols;
    EXPECT_EQ(now.slim(), was.slim());
    EXPECT_EQ(now.definition_count(), was.definition_count());
    EXPECT_EQ(now.defined_namespaces(), was.defined_namespaces());
    for (const auto& def : f.binaries[0].symbols->defined()) {
      std::string name(f.binaries[0].symbols->name(def));
      EXPECT_EQ(testing::definitions_of(now, name), testing::definitions_of(was, name)) << k << " " << name;
    }
    EXPECT_EQ(testing::definitions_of(now, "f"), (std::vector<std::string>{"V_1 hidden", "V_2"})) << k;
    EXPECT_TRUE(testing::definitions_of(now, "nothing").empty());
    auto a = imported_names(f.binaries[k]), z = imported_names(back.binaries[k]);
    EXPECT_EQ(std::vector<std::string>(z.begin(), z.end()), std::vector<std::string>(a.begin(), a.end()));
    EXPECT_FALSE(a.empty());
  }
}

TEST(Spill, ParkedFactsComeBackFromTheFile) {
  testing::TempDir dir;
  auto elf = versioned_library(dir);
  FactsSpill spill;
  std::vector<WheelFacts> facts;
  for (int k = 0; k < 8; ++k) {
    facts.push_back(full_facts(elf));
    facts.back().entries[1].name = "pkg/m" + std::to_string(k) + ".py";
  }
  std::vector<std::string> before;
  for (const auto& f : facts) before.push_back(spill_record(f));
  // Several threads park at once, as the workers of a run do.
  std::vector<FactsSpill::Place> at(facts.size());
  {
    std::vector<std::thread> threads;
    for (size_t k = 0; k < facts.size(); ++k) threads.emplace_back([&, k] { at[k] = spill.park(facts[k]); });
    for (auto& t : threads) t.join();
  }
  uint64_t total = 0;
  for (size_t k = 0; k < facts.size(); ++k) {
    EXPECT_TRUE(facts[k].entries.empty() && facts[k].binaries.empty());
    EXPECT_EQ(facts[k].find_entry("pkg/__init__.py"), nullptr);  // a parked wheel answers as one without them
    total += at[k].size;
  }
  EXPECT_EQ(spill.bytes(), total);
  // What the wheel installs, asked with the entries parked, is an error, not a verdict.
  EXPECT_THROW(facts[0].installs("pkg/lib/libl.so"), std::logic_error);
  for (size_t k = facts.size(); k-- > 0;) {  // in any order, more than once
    spill.restore(facts[k], at[k]);
    EXPECT_EQ(spill_record(facts[k]), before[k]) << k;
    EXPECT_TRUE(facts[k].installs("pkg/m" + std::to_string(k) + ".py"));
    FactsSpill::unload(facts[k]);
    EXPECT_TRUE(facts[k].binaries.empty());
    spill.restore(facts[k], at[k]);
    EXPECT_NE(facts[k].find_entry("pkg/m" + std::to_string(k) + ".py"), nullptr);
  }
  // Answered before it was parked, it is still not answered while parked; read back, the same.
  WheelFacts lib;
  EntryFacts so;
  so.name = "pkg/lib/libl.so.1";
  lib.entries.push_back(so);
  so.name = "pkg/data.txt";
  lib.entries.push_back(so);
  lib.reindex();
  EXPECT_TRUE(lib.installs("pkg/lib/libl.so.1"));
  EXPECT_FALSE(lib.installs("pkg/lib/other.so"));
  auto place = spill.park(lib);
  EXPECT_THROW(lib.installs("pkg/lib/libl.so.1"), std::logic_error);
  spill.restore(lib, place);
  EXPECT_TRUE(lib.installs("pkg/lib/libl.so.1"));
  EXPECT_FALSE(lib.installs("pkg/lib/other.so"));
  EXPECT_EQ(lib.entries.size(), 2u);
}

TEST(Spill, ADamagedRecordIsAnErrorNeverACrash) {
  testing::TempDir dir;
  WheelFacts f = full_facts(versioned_library(dir));
  const std::string record = spill_record(f);
  // Every shorter record ends early somewhere.
  for (size_t n = 0; n < record.size(); n += 1 + n / 64) {
    WheelFacts g;
    EXPECT_THROW(read_spill_record(record.substr(0, n), g), std::runtime_error) << n;
  }
  WheelFacts g;
  EXPECT_THROW(read_spill_record(record + "x", g), std::runtime_error);
  // A length that names more than the record holds is refused before anything is allocated.
  std::string huge = record;
  for (size_t k = 0; k < 8; ++k) huge[k] = '\xff';
  try {
    read_spill_record(huge, g);
    ADD_FAILURE() << "a record naming 2^64 entries was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("names more than it holds"), std::string::npos) << e.what();
  }
}

const std::string kC10 = "void gone(void) __asm__(\"_ZN3c104goneEv\"); void kept(void) __asm__(\"_ZN3c104keptEv\");";

// A run of several wheels parks each and reads it back when a set reaches it: the provider read
// first (parked before the extension is judged) still gives the extension its symbols, and the
// verdicts are those of a run that keeps every wheel in memory (no spill file: $TMPDIR cannot
// take one, said in a note).
TEST(Spill, ARunJudgesTheSameWithItsWheelsParked) {
  testing::TempDir dir;
  constexpr const char* kTag = "cp312-cp312-manylinux_2_28_x86_64";
  auto c10 = testing::gcc_shared_object(dir, "libc10.so", kC10 + " void kept(void){}", "-Wl,-soname,libc10.so");
  auto ext = testing::gcc_shared_object(dir, "ext.so", kC10 + " int use(void){gone(); kept(); return 0;}",
                                        "-Wl,--no-as-needed " + testing::shell_quote(dir.file("libc10.so")));
  testing::TempDir wheels;
  std::vector<std::string> targets;
  auto pure = [&](int k) {
    targets.push_back(WheelBuilder("pure" + std::to_string(k), "1.0")
                          .add("pure" + std::to_string(k) + "/a.py", "x")
                          .write(wheels.path()));
  };
  WheelBuilder torch("torch", "2.15.0", kTag);
  torch.purelib(false).add("torch/__init__.py", "").add("torch/lib/libc10.so", c10);
  targets.push_back(torch.write(wheels.path()));
  pure(0);
  // One declares torch; the other reaches it only as a package whose import loads its libraries.
  // Each is judged after a wheel that sends torch back to the file (nothing stays resident).
  WheelBuilder vision("vision", "0.28.0", kTag);
  vision.purelib(false).add("vision/_C.cpython-312-x86_64-linux-gnu.so", ext).requires_dist("torch==2.15.0");
  targets.push_back(vision.write(wheels.path()));
  pure(1);
  WheelBuilder ao("ao", "0.18.0", kTag);
  ao.purelib(false).add("ao/_C.cpython-312-x86_64-linux-gnu.so", ext);
  targets.push_back(ao.write(wheels.path()));
  pure(2);
  Policy p = load_policy("default");
  auto run = [&](unsigned jobs, uint64_t resident = 0) {
    CheckRequest req;
    req.targets = targets;
    req.jobs = jobs;
    req.resident_bytes = resident;
    return run_check(req, p);
  };
  auto findings = [](const RunReport& r) {
    std::string out;
    for (const auto& i : r.items) out += target_basename(i.path) + ":\n" + testing::dump(i.findings) + "\n";
    return out;
  };
  const auto parked = run(1);
  const std::string verdict = findings(parked);
  ASSERT_EQ(parked.items.size(), targets.size());
  for (size_t k : {2, 4}) {  // each binds to the parked provider: kept() is found, gone() is not
    const std::string one = testing::dump(parked.items[k].findings);
    EXPECT_TRUE(testing::has_rule(parked.items[k].findings, "WC514")) << one;
    EXPECT_NE(one.find("_ZN3c104goneEv"), std::string::npos) << one;
    EXPECT_EQ(one.find("_ZN3c104keptEv"), std::string::npos) << one;
    EXPECT_FALSE(testing::has_rule(parked.items[k].findings, "WC503")) << one;
  }
  EXPECT_TRUE(parked.target_notes.empty());
  EXPECT_EQ(findings(run(2)), verdict);
  EXPECT_EQ(findings(run(2, 64 << 20)), verdict);  // every record stays once read
  const auto in_memory = [&] {
    testing::ScopedEnv tmpdir("TMPDIR", dir.file("no/such/folder"));
    return run(2);
  }();
  EXPECT_EQ(findings(in_memory), verdict);
  for (size_t k = 0; k < targets.size(); ++k) {  // the release records: in the file, or held; the same
    EXPECT_TRUE(parked.items[k].release.parked()) << k;
    EXPECT_FALSE(in_memory.items[k].release.parked()) << k;
    EXPECT_EQ(parked.items[k].release.get(), in_memory.items[k].release.get()) << k;
    EXPECT_TRUE(parked.items[k].release.get().contains("filename")) << k;
  }
  ASSERT_EQ(in_memory.target_notes.size(), 1u);
  EXPECT_NE(in_memory.target_notes[0].find("cannot make a spill file in " + dir.file("no/such/folder")),
            std::string::npos)
      << in_memory.target_notes[0];
  EXPECT_NE(in_memory.target_notes[0].find("stay in memory"), std::string::npos) << in_memory.target_notes[0];
}

}  // namespace
}  // namespace wc
