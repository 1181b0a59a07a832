#include <gtest/gtest.h>

#include "wheel/version.h"

namespace wc {

TEST(Version, NormalisesPermissiveSpellings) {
  struct Case {
    const char* in;
    const char* out;
  };
  for (auto c : std::vector<Case>{{"1.0", "1.0"},
                                  {"v1.0", "1.0"},
                                  {"1.0-1", "1.0.post1"},
                                  {"1.0.post", "1.0.post0"},
                                  {"1.0alpha1", "1.0a1"},
                                  {"1.0-preview.2", "1.0rc2"},
                                  {"1.0c3", "1.0rc3"},
                                  {"1!2.0", "1!2.0"},
                                  {"01.002", "1.2"},
                                  {"2.10.0+cu128", "2.10.0+cu128"},
                                  {"1.0+Ubuntu-1", "1.0+ubuntu.1"},
                                  {"1.0.a.dev", "1.0a0.dev0"},
                                  {"1.0a-", "1.0a0"},
                                  {" 1.0 ", "1.0"},
                                  {"1.0+ab.01", "1.0+ab.1"}}) {
    auto v = parse_version(c.in);
    ASSERT_TRUE(v) << c.in;
    EXPECT_EQ(v->normalized(), c.out) << c.in;
  }
}

TEST(Version, RejectsNonPep440) {
  for (const char* s : {"", "1.0-", "abc", "1.0+", "1..0", "1.0+a..b", "1.0-post-x", "1.0.dev1.dev2", "1.0 1"})
    EXPECT_FALSE(parse_version(s)) << s;
}

TEST(Version, OrdersPerPep440) {
  std::vector<const char*> ordered = {"1.0.dev1",  "1.0a1.dev1",     "1.0a1",     "1.0b2", "1.0rc1", "1.0",
                                      "1.0+local", "1.0.post1.dev1", "1.0.post1", "1.1",   "1!0.1"};
  for (size_t i = 0; i + 1 < ordered.size(); ++i)
    EXPECT_LT(compare(*parse_version(ordered[i]), *parse_version(ordered[i + 1])), 0)
        << ordered[i] << " < " << ordered[i + 1];
  EXPECT_EQ(compare(*parse_version("1.0"), *parse_version("1.0.0")), 0);
}

TEST(Specifier, EvaluatesRequiresPython) {
  auto s = SpecifierSet::parse(">=3.9,!=3.10.*,<4");
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->contains(*parse_version("3.9.1")));
  EXPECT_FALSE(s->contains(*parse_version("3.10.4")));
  EXPECT_TRUE(s->contains(*parse_version("3.12.0")));
  EXPECT_FALSE(s->contains(*parse_version("4.0")));
  auto tilde = SpecifierSet::parse("~=3.8");
  EXPECT_TRUE(tilde->contains(*parse_version("3.11")));
  EXPECT_FALSE(tilde->contains(*parse_version("4.0")));
  EXPECT_FALSE(SpecifierSet::parse(">=three"));
  EXPECT_FALSE(SpecifierSet::parse("3.8"));
  EXPECT_FALSE(SpecifierSet::parse("~=3"));
}

}  // namespace wc
