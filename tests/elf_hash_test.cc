// The tables ld.so looks symbols up through (DT_GNU_HASH, DT_HASH) and the version-need chain it
// walks, broken one defect at a time in a library gcc builds here (tests/tools/patch_elf_tables.py),
// each judged by wheelcheck and by the dynamic loader itself (a child python3 opens it with ctypes
// and looks PyInit_ext up): the loader is the oracle.
#include <gtest/gtest.h>

#include "binary/binary_facts.h"
#include "pipeline/check.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::run_command;
using testing::shell_quote;

class ElfHash : public ::testing::Test {
 protected:
  testing::TempDir dir;
  // The library with `defect` patched in; `style` gnu or sysv.
  std::string build(const std::string& defect, const std::string& style = "gnu") {
    // Needs from libm and libc (two version-need entries): sqrt, strlen.
    const std::string src =
        "#include <math.h>\n#include <string.h>\ndouble kept(double x) { return sqrt(x) + 1; }\n"
        "size_t len(const char* s) { return strlen(s); }\nvoid* PyInit_ext(void) { return 0; }\n";
    testing::write_file(dir.file("ext.c"), std::vector<uint8_t>(src.begin(), src.end()));
    std::string out = dir.file("ext_" + defect + ".so");
    auto r = run_command("gcc -shared -fPIC -O1 -Wl,--hash-style=" + style + " " + shell_quote(dir.file("ext.c")) +
                         " -o " + shell_quote(out) + " -lm");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (defect != "none") {
      auto p = run_command("python3 " + shell_quote(std::string(WC_SOURCE_DIR) + "/tests/tools/patch_elf_tables.py") +
                           " " + shell_quote(out) + " " + defect + " PyInit_ext");
      EXPECT_EQ(p.exit_code, 0) << p.err;
    }
    return out;
  }
  // The loader's word: "ok", "no PyInit" (dlsym fails) or "refused" (dlopen fails or ld.so aborts).
  std::string loader(const std::string& so) {
    auto r = run_command("timeout 20 python3 -c " +
                         shell_quote("import ctypes,sys\ntry:\n l=ctypes.CDLL(sys.argv[1])\nexcept OSError:\n "
                                     "print('refused'); sys.exit()\ntry:\n l.PyInit_ext; print('ok')\nexcept "
                                     "AttributeError:\n print('no PyInit')\n") +
                         " " + shell_quote(so));
    std::string out = r.out.substr(0, r.out.find('\n'));
    return out.empty() ? "refused" : out;
  }
  std::vector<Finding> judge(const std::string& so) {
    auto bytes = testing::read_file(so);
    testing::WheelBuilder w("ext", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
    w.purelib(false).add("ext/ext.cpython-312-x86_64-linux-gnu.so", std::string(bytes.begin(), bytes.end()));
    return testing::findings_of(w.build(), w.filename());
  }
};

TEST_F(ElfHash, TablesAsTheLoaderUsesThem) {
  struct Case {
    std::string defect, style, loader, finding;
  };
  const std::vector<Case> cases = {
      {"none", "gnu", "ok", ""},
      {"no-buckets", "gnu", "no PyInit",
       "WC508 [error] ext/ext.cpython-312-x86_64-linux-gnu.so: GNU hash table has no "
       "buckets: ld.so finds none of the object's symbols"},
      {"bloom-3", "gnu", "refused", "bloom filter has 3 words, not a power of two (ld.so asserts)"},
      {"lying-chain", "gnu", "no PyInit",
       "WC514 [error] ext/ext.cpython-312-x86_64-linux-gnu.so: 1 defined name cannot be found through the GNU hash "
       "table (its chain hash or bloom filter does not lead to it): PyInit_ext"},
      {"sysv-no-buckets", "sysv", "no PyInit", "DT_HASH table has no buckets: ld.so finds none"},
      // ld.so walks vn_next, not DT_VERNEEDNUM: it loads, and the needs it checks are read here too.
      {"verneednum-1", "gnu", "ok",
       "WC508 [warning] ext/ext.cpython-312-x86_64-linux-gnu.so: the version-need chain "
       "goes on past DT_VERNEEDNUM (1 entries)"},
      // Chains without end bits: ld.so reads on past the table for absent names, and still loads.
      {"endless-chain", "gnu", "ok",
       "WC508 [warning] ext/ext.cpython-312-x86_64-linux-gnu.so: GNU hash table: a "
       "chain has no end bit"},
  };
  for (const auto& c : cases) {
    std::string so = build(c.defect, c.style);
    EXPECT_EQ(loader(so), c.loader) << c.defect;
    auto fs = judge(so);
    if (c.finding.empty()) {
      EXPECT_FALSE(testing::has_rule(fs, "WC508")) << c.defect << testing::dump(fs);
      EXPECT_FALSE(testing::has_rule(fs, "WC514")) << c.defect << testing::dump(fs);
    } else {
      EXPECT_TRUE(testing::says(fs, c.finding)) << c.defect << "\n" << testing::dump(fs);
    }
    // Where the loader fails, wheelcheck's verdict has an error.
    if (c.loader != "ok") {
      EXPECT_TRUE(std::any_of(fs.begin(), fs.end(), [](const Finding& f) { return f.severity == Severity::error; }))
          << c.defect << testing::dump(fs);
    }
  }
  // The version needs past DT_VERNEEDNUM are read: libc's are there.
  BinaryFacts b;
  auto bytes = testing::read_file(build("verneednum-1"));
  parse_elf_image(bytes.data(), bytes.size(), b);
  EXPECT_EQ(b.version_needs.size(), 2u);
}

}  // namespace
}  // namespace wc
