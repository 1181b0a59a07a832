// The documentation cannot drift from the programs: docs/rules.md is the rule catalogue's own
// output, every flag a shown wheelcheck or wheelsmoke command uses is one its --help lists, every
// command shown in a code block runs (against fixtures named as the docs name them), the README fits
// on a screen, and every docs page opens by saying what it covers.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_support.h"
#include "util/digest.h"
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

// Every wheelcheck or wheelsmoke command line in a shell code block of README.md or docs/, as a
// reader would paste it: "$ " dropped, backslash continuations joined, a trailing "# comment" cut.
struct ShownCommand {
  std::string where;  // page:line
  std::string line;
};

std::string without_comment(const std::string& line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#' && i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t')) {
      return line.substr(0, line.find_last_not_of(" \t", i - 1) + 1);
    }
  }
  return line;
}

std::vector<ShownCommand> shown_commands() {
  std::vector<ShownCommand> out;
  const std::regex program(R"(^(wheelcheck|wheelsmoke)\s)");
  for (const auto& page : doc_pages()) {
    std::istringstream in(source_file(page));
    std::string line, fence;
    bool shell = false;
    for (int n = 1; std::getline(in, line); ++n) {
      if (line.starts_with("```")) {
        fence = fence.empty() ? line.substr(3) : "";
        shell = fence == "sh" || fence == "bash" || fence == "console" || fence == "shell";
        continue;
      }
      if (!shell) continue;
      std::string text = line.starts_with("$ ") ? line.substr(2) : line;
      if (!std::regex_search(text, program)) continue;
      const int first = n;
      while (!text.empty() && text.back() == '\\' && std::getline(in, line)) {
        ++n;
        text = text.substr(0, text.size() - 1) + " " + line.substr(line.find_first_not_of(" \t"));
      }
      out.push_back({page + ":" + std::to_string(first), without_comment(text)});
    }
  }
  return out;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
}

// The paths the commands name (dist/, nightly/, torch-*.whl, my-release.json, last-night.json,
// .venv, trusted_root.json, ...) made in a sandbox: small wheels with a native library, a policy
// extending the default, last night's report from a real run, a virtual environment holding the
// torch wheel the docs import from it. The package indexes they name (PyPI, download.pytorch.org)
// become a local index serving the same files; /opt/conda/envs/rel/bin/python the sandbox's .venv.
// Each command must do its job: exit 0 or 1 (a finding or a failed suite), never a usage error or a
// crash, and every report file it asks for (--report FMT:FILE, -o FILE) written.
TEST(Docs, EveryShownCommandRuns) {
  const auto commands = shown_commands();
  ASSERT_GE(commands.size(), 35u) << "the command lines of the docs were not found";
  if (testing::run_command("python3 -m venv --help").exit_code != 0)
    GTEST_SKIP() << "python3 has no venv module (scripts/install-deps.sh installs python3-venv)";
  testing::TempDir sb;
  auto put = [&](const std::string& rel, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(sb.file(rel)).parent_path());
    std::ofstream(sb.file(rel), std::ios::binary) << text;
  };
  const std::string so =
      testing::gcc_shared_object(sb, "libnative.so", "int native(void) { return 42; }\n", "-Wl,-soname,libnative.so");
  // Installable by any CPython 3 here (the docs' cp312 names are kept where a file is named whole).
  const std::string any_python = "py3-none-manylinux_2_28_x86_64", cp312 = "cp312-cp312-manylinux_2_28_x86_64";
  auto wheel = [&](const std::string& dir, const std::string& name, const std::string& version,
                   const std::string& tag) {
    testing::WheelBuilder w(name, version, tag);
    w.purelib(false).requires_python(">=3.9");
    w.add(name + "/__init__.py",
          "from ctypes import CDLL as _c\nimport os as _os\n"
          "_c(_os.path.join(_os.path.dirname(__file__), 'libnative.so'))\n");
    w.add(name + "/libnative.so", so);
    std::filesystem::create_directories(sb.file(dir));
    return w.write(sb.file(dir));
  };
  for (const std::string dir : {"dist", "nightly", "old-wheels", "wheelhouse"}) {
    wheel(dir, "torch", "2.14.1", any_python);
    wheel(dir, "myext", "1.0", any_python);
  }
  wheel("new-wheels", "torch", "2.14.1", any_python);
  wheel("new-wheels", "myext", "1.1", any_python);
  wheel(".", "torch", "2.15.0", cp312);
  wheel(".", "torch", "2.9.0+cu128", cp312);
  std::filesystem::copy_file(wheel(".", "some", "1.0", any_python), sb.file("some.whl"));
  // The index: PEP 503 pages for torch at PyPI's and PyTorch's paths, over one files/ folder.
  const std::string indexed = wheel("files", "torch", "2.9.0+cu128", cp312);
  const auto bytes = testing::read_file(indexed);
  Digest digest("sha256");
  digest.update(bytes.data(), bytes.size());
  const std::string sha = digest.digest_hex();
  const std::string base = std::filesystem::path(indexed).filename().string();
  std::string quoted = base;
  replace_all(quoted, "+", "%2B");
  const std::string page = "<!DOCTYPE html><html><body><a href=\"/files/" + quoted + "#sha256=" + sha + "\">" + base +
                           "</a></body></html>\n";
  for (const char* at : {"simple/torch/index.html", "whl/cu128/torch/index.html"}) put(at, page);
  put("my-release.json", R"({"extends": "default"})");
  put("release.json", R"({"extends": "default"})");
  testing::ChildServer server(testing::range_server_argv(), sb.path());
  if (!server.up()) GTEST_SKIP() << "could not start a loopback HTTP server";
  // Programs on PATH as an installed user has them.
  std::filesystem::create_directories(sb.file("bin"));
  std::filesystem::create_symlink(WC_BINARY, sb.file("bin/wheelcheck"));
  std::filesystem::create_symlink(WS_BINARY, sb.file("bin/wheelsmoke"));
  const std::string env = "cd " + testing::shell_quote(sb.path()) + " && PATH=" + testing::shell_quote(sb.file("bin")) +
                          ":$PATH GITHUB_STEP_SUMMARY=" + testing::shell_quote(sb.file("summary.md")) + " ";
  // The venv without ensurepip where python3's pip can install into it (seconds, not ten).
  const std::string torch_wheel = testing::shell_quote("dist/torch-2.14.1-" + any_python + ".whl");
  auto setup = testing::run_command(
      env +
      "wheelcheck check nightly/ -q --report json:last-night.json; { python3 -m venv --without-pip .venv && "
      "python3 -m pip --python .venv/bin/python install -q --no-index " +
      torch_wheel + "; } || { python3 -m venv .venv && .venv/bin/python -m pip install -q --no-index " + torch_wheel +
      "; }");
  ASSERT_TRUE(std::filesystem::exists(sb.file("last-night.json"))) << setup.out << setup.err;
  ASSERT_EQ(setup.exit_code, 0) << setup.out << setup.err;
  // The trust root: Sigstore's own (testing::sigstore_assets()); offline, that command alone is
  // not run.
  const auto& sigstore = testing::sigstore_assets();
  ASSERT_FALSE(sigstore.skip.starts_with("FAIL ")) << sigstore.skip;
  if (sigstore.skip.empty())
    std::filesystem::copy_file(sigstore.roots + "/https%3A%2F%2Ftuf-repo-cdn.sigstore.dev/trusted_root.json",
                               sb.file("trusted_root.json"));
  const char* torch_python = std::getenv("WHEELCHECK_TORCH_PYTHON");
  if (torch_python && !*torch_python) torch_python = nullptr;
  const bool have_python312 = testing::run_command("python3.12 -c pass").exit_code == 0;
  const std::regex outputs(R"((?:--report\s+[a-z]+:|\s-o\s+)(\S+))");
  size_t ran = 0;
  std::vector<std::string> not_run;
  for (const auto& c : commands) {
    std::string cmd = c.line;
    replace_all(cmd, "https://pypi.org/", server.url(""));
    replace_all(cmd, "https://download.pytorch.org/", server.url(""));
    replace_all(cmd, "/opt/conda/envs/rel/bin/python", ".venv/bin/python");
    if (torch_python && cmd.find(" bench ") != std::string::npos)
      replace_all(cmd, ".venv/bin/python", testing::shell_quote(torch_python));
    if (!have_python312) replace_all(cmd, "python3.12", "python3");
    if (cmd.find("trusted_root.json") != std::string::npos && !std::filesystem::exists(sb.file("trusted_root.json"))) {
      not_run.push_back(c.where + " (no Sigstore trust root offline)");
      continue;
    }
    std::vector<std::string> wanted;
    for (std::sregex_iterator it(cmd.begin(), cmd.end(), outputs), end; it != end; ++it) {
      wanted.push_back((*it)[1]);
      std::filesystem::remove(sb.file((*it)[1]));
    }
    auto t0 = std::chrono::steady_clock::now();
    auto r = testing::run_command(env + "timeout 300 sh -c " + testing::shell_quote(cmd));
    std::cout << c.where << " " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
              << " s\n";
    // Without a PyTorch nothing can time it: the documented refusal (exit 2, saying so) is all a
    // run can show; with WHEELCHECK_TORCH_PYTHON (ctest -L torch) the command runs against it.
    if (r.exit_code == 2 && !torch_python && r.err.find("has no usable torch") != std::string::npos) {
      not_run.push_back(c.where + " (no PyTorch here: refused, as it must be; ctest -L torch runs it)");
      continue;
    }
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1)
        << c.where << ": `" << c.line << "` (run as `" << cmd << "`) exits " << r.exit_code << "\n"
        << r.out.substr(0, 4000) << "\n"
        << r.err.substr(0, 4000);
    for (const auto& w : wanted)
      EXPECT_TRUE(std::filesystem::exists(sb.file(w))) << c.where << ": `" << c.line << "` did not write " << w;
    ++ran;
  }
  for (const auto& n : not_run) std::cout << "not run: " << n << "\n";
  EXPECT_GE(ran + not_run.size(), commands.size());
  // The step summary the docs append to got the diff.
  auto summary = testing::read_file(sb.file("summary.md"));
  EXPECT_FALSE(summary.empty()) << "nothing appended to $GITHUB_STEP_SUMMARY";
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
