// The documentation cannot drift from the programs: docs/rules.md is the rule catalogue's own
// output, every flag a shown wheelcheck or wheelsmoke command uses is one its --help lists, the
// README fits on a screen, and every docs page opens by saying what it covers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

std::string source_file(const std::string& rel) {
  auto bytes = testing::read_file(std::string(WC_SOURCE_DIR) + "/" + rel);
  return std::string(bytes.begin(), bytes.end());
}

std::vector<std::string> doc_pages() {
  std::vector<std::string> out{"README.md"};
  for (const auto& e : std::filesystem::directory_iterator(std::string(WC_SOURCE_DIR) + "/docs"))
    if (e.path().extension() == ".md") out.push_back("docs/" + e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Docs, RulesPageIsTheCatalogue) {
  auto r = testing::run_wheelcheck({"rules", "--format", "markdown"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(source_file("docs/rules.md"), r.out)
      << "docs/rules.md differs from the catalogue: build/wheelcheck rules --format markdown > docs/rules.md";
}

// Every command line shown (in code blocks, and in `inline code` that starts with the program's
// name), split into the program, its subcommand and the flags it passes.
struct Shown {
  std::string page, program, sub, flag;
};

std::vector<Shown> shown_flags() {
  std::vector<Shown> out;
  const std::regex command(R"((?:^|[\s`(/])(wheelcheck|wheelsmoke)\s+([a-z]+)((?:[^`\n|#])*))");
  const std::regex flag(R"((?:^|\s)(--[a-z][a-z0-9-]*))");
  for (const auto& page : doc_pages()) {
    const std::string text = source_file(page);
    for (std::sregex_iterator it(text.begin(), text.end(), command), end; it != end; ++it) {
      const std::string program = (*it)[1], sub = (*it)[2], rest = (*it)[3];
      for (std::sregex_iterator f(rest.begin(), rest.end(), flag); f != end; ++f)
        out.push_back({page, program, sub, (*f)[1]});
    }
  }
  return out;
}

TEST(Docs, EveryShownFlagIsInTheProgramsHelp) {
  std::map<std::string, std::string> help;  // "wheelcheck check" -> its --help
  auto help_of = [&](const std::string& program, const std::string& sub) -> const std::string& {
    auto key = program + " " + sub;
    if (!help.count(key)) {
      const char* binary = program == "wheelcheck" ? WC_BINARY : WS_BINARY;
      auto r = testing::run_command(testing::shell_quote(binary) + " " + sub + " --help");
      help[key] = r.exit_code == 0 ? r.out : "";
    }
    return help[key];
  };
  const std::set<std::string> everywhere = {"--help", "--version"};
  size_t checked = 0;
  for (const auto& s : shown_flags()) {
    const std::string& h = help_of(s.program, s.sub);
    if (h.empty()) continue;  // not a subcommand ("wheelcheck reads ..." in prose)
    ++checked;
    if (everywhere.count(s.flag)) continue;
    const std::regex listed("(^|[\\s,])" + s.flag + "([\\s,=]|$)");
    EXPECT_TRUE(std::regex_search(h, listed)) << s.page << ": `" << s.program << " " << s.sub << " ... " << s.flag
                                              << "` names a flag its --help does not list";
  }
  EXPECT_GE(checked, 40u) << "the command lines of the docs were not found";
}

TEST(Docs, ReadmeFitsAndPagesSayWhatTheyCover) {
  const std::string readme = source_file("README.md");
  EXPECT_LE(std::count(readme.begin(), readme.end(), '\n'), 250) << "README.md is over 250 lines";
  // Quick start: the two commands.
  EXPECT_NE(readme.find("make demo"), std::string::npos);
  EXPECT_NE(readme.find("make test"), std::string::npos);
  for (const auto& page : doc_pages()) {
    if (page == "README.md" || page == "docs/rules.md") continue;
    const std::string text = source_file(page);
    ASSERT_TRUE(text.starts_with("# ")) << page << " does not open with its title";
    // The title, a blank line, then a paragraph of at most three lines saying what the page covers.
    size_t start = text.find("\n\n");
    ASSERT_NE(start, std::string::npos) << page;
    size_t end = text.find("\n\n", start + 2);
    std::string opener = text.substr(start + 2, end - start - 2);
    EXPECT_LE(std::count(opener.begin(), opener.end(), '\n'), 2)
        << page << ": the opening paragraph is over three lines";
    EXPECT_FALSE(opener.starts_with("#") || opener.starts_with("```"))
        << page << " opens without saying what it covers";
  }
  // Every page the README links to exists.
  const std::regex link(R"(\]\((docs/[^)#]+)\))");
  for (std::sregex_iterator it(readme.begin(), readme.end(), link), end; it != end; ++it)
    EXPECT_TRUE(std::filesystem::exists(std::string(WC_SOURCE_DIR) + "/" + (*it)[1].str())) << (*it)[1];
}

}  // namespace
}  // namespace wc
