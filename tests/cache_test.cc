// The shared caches of the tests and tools (tools/wc_cache.py, used by tools/fetch_wheels.py, the
// schema and torch venvs, the extracted auditwheel sdist): many processes filling one empty cache
// at once, from a loopback index (tests/tools/http_fault_server.py's PEP 691 pages), download each
// file once, all succeed, never expose half a file under its final name, and a failed download
// leaves nothing behind but other processes' files.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <thread>

#include "support/test_support.h"
#include "util/digest.h"
#include "wheel_builder.h"

namespace wc {
namespace {

namespace fs = std::filesystem;
using testing::run_command;
using testing::shell_quote;

constexpr const char* kName = "demo-1.0-py3-none-any.whl";

class SharedCache : public ::testing::Test {
 protected:
  testing::TempDir www, cache;
  std::string log;
  std::unique_ptr<testing::ChildServer> server;
  std::vector<uint8_t> payload;
  std::string sha;

  void SetUp() override {
    std::mt19937 rng(7);
    payload.resize(1u << 20);  // 64 chunks of /slow/: about 0.3 s per download
    for (auto& b : payload) b = static_cast<uint8_t>(rng());
    testing::write_file(www.file(kName), payload);
    Digest d;
    d.update(payload.data(), payload.size());
    sha = d.digest_hex();
    log = www.file("requests.log");
    server = std::make_unique<testing::ChildServer>(std::vector<std::string>{
        "python3", std::string(WC_SOURCE_DIR) + "/tests/tools/http_fault_server.py", www.path(), "{port}", log});
    if (!server->up()) GTEST_SKIP() << "could not start tests/tools/http_fault_server.py on loopback";
  }

  // fetch_wheels.py for the demo file from the loopback index whose file URLs are /MODE/F.
  std::string fetch_cmd(const std::string& mode, const std::string& want) const {
    return "WHEELCHECK_PYPI_SIMPLE=" + server->url("jsonsimple/" + mode) + " python3 " +
           shell_quote(std::string(WC_SOURCE_DIR) + "/tools/fetch_wheels.py") + " " + shell_quote(cache.path()) +
           " demo " + kName + " " + want;
  }

  size_t requests_for(const std::string& prefix) const {
    std::ifstream in(log);
    size_t n = 0;
    for (std::string line; std::getline(in, line);) n += line.rfind("GET " + prefix, 0) == 0;
    return n;
  }

  // Every name in the cache that is not the final file or a lock file (temporaries left behind).
  std::vector<std::string> leftovers() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(cache.path())) {
      std::string n = e.path().filename().string();
      if (n != kName && n.size() > 5 && n.substr(n.size() - 5) == ".lock") continue;
      if (n != kName) out.push_back(n);
    }
    return out;
  }
};

TEST_F(SharedCache, ConcurrentFetchesDownloadOnceAndNoReaderSeesHalfAFile) {
  constexpr int kFetchers = 8;
  std::string script;
  for (int i = 0; i < kFetchers; ++i)
    script += "(" + fetch_cmd("slow", sha) + " >" + shell_quote(www.file("out" + std::to_string(i))) +
              " 2>&1; echo $? >" + shell_quote(www.file("rc" + std::to_string(i))) + ") & ";
  script += "wait";
  std::atomic<bool> done{false};
  std::thread fetchers([&] {
    run_command(script);
    done = true;
  });
  // A reader polling the final name meanwhile: whenever it is there, it is whole.
  size_t seen = 0, partial = 0;
  std::string final_path = cache.file(kName);
  while (!done) {
    std::error_code ec;
    auto size = fs::file_size(final_path, ec);
    if (!ec) {
      ++seen;
      partial += size != payload.size();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  fetchers.join();
  for (int i = 0; i < kFetchers; ++i) {
    auto rc = testing::read_file(www.file("rc" + std::to_string(i)));
    auto out = testing::read_file(www.file("out" + std::to_string(i)));
    EXPECT_EQ(std::string(rc.begin(), rc.end()), "0\n") << std::string(out.begin(), out.end());
    EXPECT_EQ(std::string(out.begin(), out.end()), final_path + "\n");
  }
  EXPECT_EQ(requests_for("/slow/"), 1u) << "each fetcher that waited must find the first one's file";
  EXPECT_EQ(requests_for("/jsonsimple/"), 1u);
  EXPECT_EQ(testing::read_file(final_path), payload);
  EXPECT_EQ(partial, 0u) << "of " << seen << " looks at the final name";
  EXPECT_EQ(leftovers(), std::vector<std::string>{});
}

TEST_F(SharedCache, AnInterruptedDownloadLeavesNoFileUnderTheFinalName) {
  auto cut = run_command(fetch_cmd("cut", sha));
  EXPECT_EQ(cut.exit_code, 1) << cut.err;
  EXPECT_NE(cut.err.find("download failed"), std::string::npos) << cut.err;
  EXPECT_NE(cut.err.find(kName), std::string::npos) << cut.err;
  EXPECT_FALSE(fs::exists(cache.file(kName)));
  EXPECT_EQ(leftovers(), std::vector<std::string>{});
  // The next fetch starts afresh and succeeds.
  auto ok = run_command(fetch_cmd("ok", sha));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(testing::read_file(cache.file(kName)), payload);
}

TEST_F(SharedCache, AHashMismatchRemovesOnlyItsOwnTemporaryFile) {
  // Another process's download in flight, under a temporary name of its own.
  std::string other = cache.file(std::string(".") + kName + ".other.part");
  testing::write_file(other, {1, 2, 3});
  std::string wrong(64, '0');
  auto r = run_command(fetch_cmd("ok", wrong));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("sha256 " + sha + ", expected " + wrong), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(cache.file(kName)));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_EQ(leftovers(), std::vector<std::string>{fs::path(other).filename().string()});
}

TEST_F(SharedCache, AStaleFileUnderTheFinalNameIsReplacedWhole) {
  testing::write_file(cache.file(kName), {'o', 'l', 'd'});
  auto r = run_command(fetch_cmd("ok", sha));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::read_file(cache.file(kName)), payload);
  EXPECT_EQ(requests_for("/ok/"), 1u);
  // Cached with the right hash: nothing is asked of the index at all.
  EXPECT_EQ(run_command(fetch_cmd("ok", sha)).exit_code, 0);
  EXPECT_EQ(requests_for("/ok/") + requests_for("/jsonsimple/"), 2u);
}

TEST(SharedCacheExtract, ConcurrentExtractionsMakeOneWholeFolder) {
  testing::TempDir dir;
  ASSERT_EQ(run_command("cd " + shell_quote(dir.path()) +
                        " && mkdir -p src/pkg-1.0/a && for i in $(seq 200); do echo $i > src/pkg-1.0/a/f$i; done"
                        " && tar czf pkg.tar.gz -C src pkg-1.0")
                .exit_code,
            0);
  std::string tool = "python3 " + shell_quote(std::string(WC_SOURCE_DIR) + "/tools/wc_cache.py");
  fs::create_directories(dir.file("cache"));
  std::string script;
  for (int i = 0; i < 6; ++i)
    script += "(" + tool + " extract " + shell_quote(dir.file("pkg.tar.gz")) + " pkg-1.0 " +
              shell_quote(dir.file("cache")) + " >/dev/null 2>" + shell_quote(dir.file("err" + std::to_string(i))) +
              " || echo fail >>" + shell_quote(dir.file("failures")) + ") & ";
  run_command(script + "wait");
  EXPECT_FALSE(fs::exists(dir.file("failures")));
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir.file("cache/pkg-1.0/a"))) files += e.is_regular_file();
  EXPECT_EQ(files, 200u);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.file("cache"))) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"pkg-1.0", "pkg-1.0.lock"}));  // no temporary folder left
}

}  // namespace
}  // namespace wc
