// WC514 on macOS: what dyld binds, read from images clang and ld64.lld build here (bind and
// lazy-bind opcodes, re-exported dylibs, flat lookups, weak imports) and from images laid out as a
// recent ld64 writes them (chained fixups, a separate export trie). The reader's imports are
// cross-checked against llvm-objdump's bind tables, an independent reader of the same bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "binary/binary_facts.h"
#include "binary/macho_dyld_info.h"
#include "policy/policy.h"
#include "rules/loader/install_set.h"
#include "rules/loader/symbol_binding.h"
#include "support/fixtures.h"
#include "support/test_support.h"
#include "wheel/entry_names.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::run_command;
using testing::says;
using testing::shell_quote;
using testing::WheelBuilder;

constexpr const char* kMac = "cp312-cp312-macosx_11_0_arm64";

class MachOBind : public ::testing::Test {
 protected:
  testing::TempDir dir;
  std::string ld;  // ld64.lld, by whatever name this LLVM installs it

  void SetUp() override {
    auto r = run_command(
        "command -v clang >/dev/null && for l in ld64.lld ld64.lld-14 ld64.lld-15 ld64.lld-16 "
        "/usr/lib/llvm-*/bin/ld64.lld; do command -v $l && break; done");
    if (r.exit_code != 0 || r.out.empty()) GTEST_SKIP() << "clang or ld64.lld missing: no Mach-O images can be built";
    ld = r.out.substr(0, r.out.find('\n'));
  }
  // An arm64 Mach-O from C (or C++ with a .cc name): `kind` is -dylib or -bundle; `link` holds the
  // dylibs it links against and other ld64 flags.
  std::string image(const std::string& name, const std::string& file, const std::string& src, const std::string& kind,
                    const std::string& link) {
    testing::write_file(dir.file(file), std::vector<uint8_t>(src.begin(), src.end()));
    auto r = run_command("cd " + shell_quote(dir.path()) + " && clang -target arm64-apple-macos11 -c " + file + " -o " +
                         name + ".o && " + ld + " -arch arm64 -platform_version macos 11.0 11.0 " + kind + " " + name +
                         ".o " + link + " -o " + name);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    auto b = testing::read_file(dir.file(name));
    return std::string(b.begin(), b.end());
  }
  // The first wheel's verdict in the run, the same over whole facts and over what a run keeps for
  // the install-set rules (its Mach-O exports as hashes).
  static std::vector<Finding> judge(std::vector<const WheelBuilder*> run_of) {
    static const Policy p = load_policy("default");
    std::vector<std::pair<std::vector<uint8_t>, std::string>> wheels;
    for (const auto* w : run_of) wheels.emplace_back(w->build(), w->filename());
    return testing::judge_first_of_run(wheels, p);
  }
};

BinaryFacts parsed(const std::string& bytes) {
  BinaryFacts b;
  parse_binary_image(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), b);
  return b;
}

// The bind and lazy-bind opcodes lld writes: each two-level import against the dylib that defines
// it, a flat lookup (-undefined dynamic_lookup), a weak import; the reader agrees with
// llvm-objdump's tables. Shipped with a libfoo that lost bar(), the extension does not load.
TEST_F(MachOBind, BindOpcodesAgainstTheImageFound) {
  const std::string full = image("libfoo.dylib", "foo.c", "int foo(void){return 1;}\nint bar(void){return 2;}\n",
                                 "-dylib -install_name @rpath/libfoo.dylib", "");
  const std::string old = image("libfoo_old.dylib", "foo_old.c", "int foo(void){return 1;}\n",
                                "-dylib -install_name @rpath/libfoo.dylib", "");
  const std::string ext =
      image("_ext.so", "ext.c",
            "extern int foo(void); extern int bar(void); extern long PyLong_FromLong(long);\n"
            "__attribute__((weak_import)) extern int maybe(void); extern int from_somewhere(void);\n"
            "long PyInit__ext(void){ return foo() + bar() + PyLong_FromLong(1) + (maybe ? maybe() : 0) + "
            "from_somewhere(); }\n",
            "-bundle", "libfoo.dylib -undefined dynamic_lookup -rpath @loader_path/.dylibs");

  BinaryFacts b = parsed(ext);
  ASSERT_TRUE(b.errors.empty()) << b.errors.front();
  ASSERT_EQ(b.slices.size(), 1u);
  const MachOSlice& sl = b.slices[0];
  EXPECT_TRUE(sl.imports_read);
  std::set<std::pair<std::string, std::string>> ours;  // (symbol, dylib as objdump names it)
  for (const auto& i : sl.imports)
    ours.emplace(i.name, i.ordinal == MachOImport::flat_lookup ? "flat-namespace"
                         : i.ordinal > 0                       ? std::string(last_component(sl.dylibs[i.ordinal - 1]))
                                                               : std::to_string(i.ordinal));
  // llvm-objdump's rows: "segment section address [type addend] dylib symbol [(weak_import)]".
  auto od = run_command("(llvm-objdump --macho --bind --lazy-bind " + shell_quote(dir.file("_ext.so")) +
                        " || llvm-objdump-14 --macho --bind --lazy-bind " + shell_quote(dir.file("_ext.so")) + ")");
  ASSERT_EQ(od.exit_code, 0) << od.err;
  std::set<std::pair<std::string, std::string>> theirs;
  std::istringstream rows(od.out);
  for (std::string line; std::getline(rows, line);) {
    std::istringstream words(line);
    std::vector<std::string> cols{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    if (cols.size() < 5 || !cols[0].starts_with("__")) continue;
    size_t sym = cols.back() == "(weak_import)" ? cols.size() - 2 : cols.size() - 1;
    std::string dylib(cols[sym - 1]);
    if (dylib != "flat-namespace") dylib += ".dylib";
    theirs.emplace(std::string(cols[sym]), dylib);
  }
  theirs.erase({"dyld_stub_binder", "flat-namespace"});
  ours.erase({"dyld_stub_binder", "flat-namespace"});
  EXPECT_EQ(ours, theirs) << od.out;
  EXPECT_TRUE(ours.count({"_bar", "libfoo.dylib"}));
  auto weak =
      std::find_if(sl.imports.begin(), sl.imports.end(), [](const MachOImport& i) { return i.name == "_maybe"; });
  ASSERT_NE(weak, sl.imports.end());
  EXPECT_TRUE(weak->weak);
  BinaryFacts lib = parsed(full);
  EXPECT_EQ(lib.slices.at(0).exports, (std::vector<std::string>{"_bar", "_foo"}));

  auto wheel = [&](const std::string& libfoo) {
    WheelBuilder w("ext", "1.0", kMac);
    w.purelib(false).add("ext/_ext.so", ext).add("ext/.dylibs/libfoo.dylib", libfoo);
    return w;
  };
  auto good = wheel(full);
  auto ok = judge({&good});
  EXPECT_FALSE(testing::has_rule(ok, "WC514")) << testing::dump(ok);
  auto skewed = wheel(old);
  auto fails = judge({&skewed});
  EXPECT_TRUE(says(fails,
                   "WC514 [error] ext/_ext.so: arm64 slice: 1 symbol dyld binds to no image: _bar, expected in "
                   "@rpath/libfoo.dylib, found as ext/.dylibs/libfoo.dylib: dyld refuses the load"))
      << testing::dump(fails);
  // inspect's account of the same binds: 5 imports (stub binder among them), one bound in libfoo,
  // one unbound, the rest taken on trust, each with its reason.
  const Policy p = load_policy("default");
  std::vector<WheelFacts> run;
  run.push_back(testing::facts_of(skewed.build(), skewed.filename()));
  auto bindings = symbol_bindings(run[0], install_set_for(run[0], run, nullptr, p.cuda.import_loaded), p);
  auto it = std::find_if(bindings.begin(), bindings.end(),
                         [](const SymbolBinding& sb) { return sb.binary == "ext/_ext.so"; });
  ASSERT_NE(it, bindings.end());
  EXPECT_EQ(it->unbound, 1u);
  EXPECT_EQ(it->bound, (std::vector<std::pair<std::string, size_t>>{{"ext/.dylibs/libfoo.dylib", 1}}));
  std::map<std::string, size_t> trusted(it->trusted.begin(), it->trusted.end());
  EXPECT_EQ(trusted["the Python C API (the interpreter defines it)"], 1u);
  EXPECT_EQ(trusted["weak imports (dyld binds a missing one to null)"], 1u);
  EXPECT_EQ(trusted["flat lookup a system library may answer"], 2u);  // from_somewhere, dyld_stub_binder
}

// A dylib that re-exports another (LC_REEXPORT_DYLIB): a symbol bound against the umbrella is
// found in the re-exported image; one neither defines is missing.
TEST_F(MachOBind, ReexportedDylibsAreFollowed) {
  const std::string inner = image("libinner.dylib", "inner.c", "int deep(void){return 1;}\nint gone(void){return 2;}\n",
                                  "-dylib -install_name @loader_path/libinner.dylib", "");
  const std::string inner_old = image("libinner_old.dylib", "inner_old.c", "int deep(void){return 1;}\n",
                                      "-dylib -install_name @loader_path/libinner.dylib", "");
  const std::string outer = image("libouter.dylib", "outer.c", "int top(void){return 0;}\n",
                                  "-dylib -install_name @rpath/libouter.dylib", "-reexport_library libinner.dylib");
  const std::string ext = image("_ext.so", "ext.c",
                                "extern int top(void); extern int deep(void); extern int gone(void);\n"
                                "long PyInit__ext(void){ return top() + deep() + gone(); }\n",
                                "-bundle", "libouter.dylib -rpath @loader_path -undefined dynamic_lookup");
  BinaryFacts o = parsed(outer);
  ASSERT_EQ(o.slices.at(0).reexported_dylibs, std::vector<std::string>{"@loader_path/libinner.dylib"});
  auto wheel = [&](const std::string& in) {
    WheelBuilder w("ext", "1.0", kMac);
    w.purelib(false).add("ext/_ext.so", ext).add("ext/libouter.dylib", outer).add("ext/libinner.dylib", in);
    return w;
  };
  auto good = wheel(inner);
  auto ok = judge({&good});
  EXPECT_FALSE(testing::has_rule(ok, "WC514")) << testing::dump(ok);
  auto skewed = wheel(inner_old);
  auto fails = judge({&skewed});
  EXPECT_TRUE(says(fails,
                   "WC514 [error] ext/_ext.so: arm64 slice: 1 symbol dyld binds to no image: _gone, expected "
                   "in @rpath/libouter.dylib"))
      << testing::dump(fails);
}

// Chained fixups (what ld64 writes for macOS 12 and later): the import table's ordinals and weak
// bits; a torch extension's two-level c10 import found in the image `import torch` loaded under
// that install name, and its flat lookups: the C API is the interpreter's, a c10:: name no image
// defines is missing, an unknown C name may be a system library's.
TEST_F(MachOBind, ChainedFixupsAndFlatLookups) {
  auto c10 = [](std::vector<std::string> exports) {
    auto v = testing::macho_chained("@rpath/libc10.dylib", {"/usr/lib/libSystem.B.dylib"}, "@loader_path", {}, exports);
    return std::string(v.begin(), v.end());
  };
  auto ext = testing::macho_chained("", {"/usr/lib/libSystem.B.dylib", "@rpath/libc10.dylib"},
                                    "/Users/runner/work/pytorch/build/lib",
                                    {{"_malloc", 1},
                                     {"__ZN3c104keptEv", 2},
                                     {"__ZN3c104goneEv", 2},
                                     {"__ZN3c106absentEv", 2, true},
                                     {"_PyLong_FromLong", MachOImport::flat_lookup},
                                     {"__ZN3c107flattenEv", MachOImport::flat_lookup},
                                     {"_some_c_name", MachOImport::flat_lookup}},
                                    {"_PyInit__C"});
  BinaryFacts b = parsed(std::string(ext.begin(), ext.end()));
  ASSERT_TRUE(b.errors.empty()) << b.errors.front();
  const MachOSlice& sl = b.slices.at(0);
  ASSERT_TRUE(sl.imports_read && sl.exports_read);
  ASSERT_EQ(sl.imports.size(), 7u);
  EXPECT_EQ(sl.imports[2].ordinal, 2);
  EXPECT_TRUE(sl.imports[3].weak);
  EXPECT_EQ(sl.imports[4].ordinal, MachOImport::flat_lookup);
  EXPECT_EQ(sl.exports, std::vector<std::string>{"_PyInit__C"});

  auto torch = [&](std::vector<std::string> exports) {
    WheelBuilder t("torch", "2.15.0", kMac);
    t.purelib(false).add("torch/__init__.py", "").add("torch/lib/libc10.dylib", c10(exports));
    return t;
  };
  WheelBuilder v("vis", "0.30.0", kMac);
  v.purelib(false).add("vis/_C.so", std::string(ext.begin(), ext.end())).requires_dist("torch==2.15.0");
  auto same = torch({"__ZN3c104goneEv", "__ZN3c104keptEv", "__ZN3c107flattenEv"});
  auto ok = judge({&v, &same});
  EXPECT_FALSE(testing::has_rule(ok, "WC514")) << testing::dump(ok);
  auto newer = torch({"__ZN3c104keptEv"});
  auto fails = judge({&v, &newer});
  EXPECT_TRUE(says(fails,
                   "WC514 [error] vis/_C.so: arm64 slice: 2 symbols dyld binds to no image: __ZN3c104goneEv "
                   "(c10::gone()), expected in @rpath/libc10.dylib, found as torch/lib/libc10.dylib from torch "
                   "2.15.0; __ZN3c107flattenEv (c10::flatten()), a flat lookup no image of the process answers"))
      << testing::dump(fails);
  EXPECT_FALSE(says(fails, "_some_c_name")) << testing::dump(fails);
}

// torchaudio on macOS: _torchaudio.so needs @rpath/libtorchaudio.so, which no LC_RPATH reaches; the
// package's Python loads lib/libtorchaudio.so by path first, so dyld reuses that image. Without
// that load, the need is met nowhere.
TEST(MachOLoad, ALibraryThePackageLoadsItselfIsAnImageOfTheProcess) {
  auto lib =
      testing::macho_chained("@rpath/libaud.so", {"/usr/lib/libSystem.B.dylib"}, "@loader_path", {}, {"_aud_fn"});
  auto ext = testing::macho_chained("", {"/usr/lib/libSystem.B.dylib", "@rpath/libaud.so"}, "/Users/runner/build/lib",
                                    {{"_aud_fn", 2}}, {"_PyInit__aud"});
  auto judge = [&](const std::string& init) {
    WheelBuilder w("aud", "1.0", kMac);
    w.purelib(false)
        .add("aud/__init__.py", init)
        .add("aud/lib/libaud.so", std::string(lib.begin(), lib.end()))
        .add("aud/lib/_aud.so", std::string(ext.begin(), ext.end()));
    static const Policy p = load_policy("default");
    return testing::judge_first_of_run({{w.build(), w.filename()}}, p);
  };
  auto loads = judge("import torch\ntorch.ops.load_library(_path('lib/libaud.so'))\n");
  EXPECT_FALSE(testing::has_rule(loads, "WC503")) << testing::dump(loads);
  EXPECT_FALSE(testing::has_rule(loads, "WC514")) << testing::dump(loads);
  auto alone = judge("");
  EXPECT_TRUE(says(alone, "WC503 [error] aud/lib/_aud.so: arm64 slice loads @rpath/libaud.so")) << testing::dump(alone);
}

// Hostile tables: an ordinal past the dylibs, a trie that loops, a ULEB that never ends, compressed
// chained-import names: an error or "not read", never a crash or a hang.
TEST(MachOTables, MalformedTablesAreErrors) {
  std::vector<MachOImport> out;
  const uint8_t past[] = {0x13, 0x40, '_', 'x', 0, 0x90, 0x00};  // ordinal 3 of 2 dylibs
  EXPECT_THROW(read_bind_opcodes(Cursor(past, sizeof past), false, 2, out), ParseError);
  const uint8_t endless[] = {0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  EXPECT_THROW(read_bind_opcodes(Cursor(endless, sizeof endless), false, 2, out), ParseError);
  const uint8_t bad_op[] = {0xe0};
  EXPECT_THROW(read_bind_opcodes(Cursor(bad_op, sizeof bad_op), true, 2, out), ParseError);
  const uint8_t ok[] = {0x11, 0x40, '_', 'a', 0, 0x90, 0x00, 0x31 /* special -? */};
  std::vector<MachOImport> good;
  EXPECT_THROW(read_bind_opcodes(Cursor(ok, sizeof ok), true, 2, good), ParseError);  // -15 is no ordinal
  ASSERT_EQ(good.size(), 1u);
  EXPECT_EQ(good[0].name, "_a");
  EXPECT_EQ(good[0].ordinal, 1);
  // Root -> "a" -> root: a loop.
  const uint8_t loop[] = {0, 1, 'a', 0, 0};
  std::vector<std::string> names;
  EXPECT_THROW(read_export_trie(Cursor(loop, sizeof loop), names), ParseError);
  const uint8_t past_end[] = {0, 1, 'a', 0, 0x7f};
  EXPECT_THROW(read_export_trie(Cursor(past_end, sizeof past_end), names), ParseError);
  // A chained header whose names are zlib-compressed: not read (false), nothing appended.
  uint8_t zipped[28] = {};
  zipped[24] = 1;
  std::vector<MachOImport> none;
  EXPECT_FALSE(read_chained_imports(Cursor(zipped, sizeof zipped), 1, none));
  EXPECT_TRUE(none.empty());
  // The whole image: an ordinal past the dylibs is WC508's (dyld refuses it), named in the error.
  auto img = testing::macho_chained("", {"/usr/lib/libSystem.B.dylib"}, "@loader_path", {{"_x", 5}}, {});
  BinaryFacts b = parsed(std::string(img.begin(), img.end()));
  ASSERT_FALSE(b.errors.empty());
  EXPECT_NE(b.errors.front().find("library ordinal 5 names no dylib"), std::string::npos) << b.errors.front();
}

}  // namespace
}  // namespace wc
