// Remote wheels against real servers on 127.0.0.1 started here: nginx (Range support, redirects),
// Python's http.server (no Range: the whole-download path) and tests/tools/http_fault_server.py
// (a 500 then success, a body cut short, a wrong Content-Range, a stalled transfer, credentials,
// a PEP 503 index with PEP 658 metadata). Each fault ends in a finding on that wheel or a clear
// error, never a hang; where the bytes arrive, the verdict equals the local file's; credentials
// never appear in any output.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/raw_zip.h"
#include "support/test_support.h"
#include "util/digest.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using nlohmann::json;
using testing::ChildServer;
using testing::run_command;
using testing::shell_quote;
using testing::TempDir;
using testing::WheelBuilder;

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// wheelcheck with the HTTP settings the tests want (a short stall timeout, quick retries).
testing::RunResult wc(const std::vector<std::string>& args, const std::string& env = "") {
  std::string cmd = "env -u GITHUB_STEP_SUMMARY NO_COLOR=1 WHEELCHECK_HTTP_TIMEOUT=2 WHEELCHECK_HTTP_RETRIES=2 " + env +
                    " " + shell_quote(WC_BINARY);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  return run_command(cmd);
}

// Findings as "RULE entry" lines: what must not depend on where the bytes came from.
std::vector<std::string> verdict_of(const std::string& report) {
  auto j = json::parse(report);
  std::vector<std::string> out;
  for (const auto& w : j["wheels"]) {
    out.push_back(w["verdict"].get<std::string>());
    for (const auto& f : w["findings"]) out.push_back(f["rule"].get<std::string>() + " " + f.value("entry", ""));
  }
  return out;
}

class RemoteFaults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    std::string www = dir_->file("www");
    std::filesystem::create_directories(www);
    // A platform wheel with a large incompressible entry (metadata depth must not fetch it) and a
    // small ELF, and a second, failing wheel (a RECORD size that lies).
    std::string blob;
    uint32_t x = 11;
    for (int i = 0; i < 16 << 20; ++i) blob.push_back(static_cast<char>((x = x * 1664525 + 1013904223) >> 24));
    auto so = run_command("printf 'int f(void){return 1;}' | gcc -x c -shared -fPIC -o " +
                          shell_quote(dir_->file("lib.so")) + " -");
    std::string elf = so.exit_code == 0 ? slurp(dir_->file("lib.so")) : "";
    good_ = WheelBuilder("demo", "1.0", "cp312-cp312-manylinux_2_17_x86_64")
                .purelib(false)
                .add("demo/__init__.py", "x = 1\n")
                .add("demo/data.bin", blob)
                .add("demo/_native.so", elf)
                .write(www);
    bad_ =
        WheelBuilder("demo", "1.1").add("demo/__init__.py", "").edit_record([](auto& r) { r[0][2] = "9"; }).write(www);
    good_ = std::filesystem::path(good_).filename().string();
    bad_ = std::filesystem::path(bad_).filename().string();
    log_ = dir_->file("requests.log");
    // nginx: Range, 404, a redirect loop and a redirect to another path.
    std::string conf = "daemon off; master_process off; worker_processes 1; pid " + dir_->file("nginx.pid") +
                       "; error_log " + dir_->file("nginx.err") +
                       ";\nevents { worker_connections 64; }\nhttp {\n access_log off;\n" + " client_body_temp_path " +
                       dir_->file("t1") + "; proxy_temp_path " + dir_->file("t2") + "; fastcgi_temp_path " +
                       dir_->file("t3") + "; uwsgi_temp_path " + dir_->file("t4") + "; scgi_temp_path " +
                       dir_->file("t5") + ";\n" + " server {\n  listen 127.0.0.1:PORT_HERE;\n  root " + www +
                       ";\n  location /loop/ { return 302 $uri; }\n" +
                       "  location /moved/ { rewrite ^/moved/(.*)$ /$1 permanent; }\n }\n}\n";
    testing::write_file(dir_->file("nginx.conf.in"), std::vector<uint8_t>(conf.begin(), conf.end()));
    nginx_ =
        new ChildServer({"sh", "-c",
                         "sed 's/PORT_HERE/{port}/' " + dir_->file("nginx.conf.in") + " > " + dir_->file("nginx.conf") +
                             " && exec nginx -c " + dir_->file("nginx.conf") + " -p " + dir_->path()});
    plain_ = new ChildServer({"python3", "-m", "http.server", "{port}", "--bind", "127.0.0.1"}, www);
    faults_ = new ChildServer(
        {"python3", std::string(WC_SOURCE_DIR) + "/tests/tools/http_fault_server.py", www, "{port}", log_});
  }
  static void TearDownTestSuite() {
    delete nginx_;
    delete plain_;
    delete faults_;
    delete dir_;
  }
  void SetUp() override {
    if (!faults_->up()) GTEST_SKIP() << "could not start tests/tools/http_fault_server.py on loopback";
  }
  std::string local(const std::string& name) const { return dir_->file("www/" + name); }
  static std::string requests() { return slurp(log_); }

  static TempDir* dir_;
  static ChildServer *nginx_, *plain_, *faults_;
  static std::string good_, bad_, log_;
};
TempDir* RemoteFaults::dir_ = nullptr;
ChildServer *RemoteFaults::nginx_ = nullptr, *RemoteFaults::plain_ = nullptr, *RemoteFaults::faults_ = nullptr;
std::string RemoteFaults::good_, RemoteFaults::bad_, RemoteFaults::log_;

TEST_F(RemoteFaults, VerdictsEqualTheLocalFilesOnEveryServer) {
  auto local_run = wc({"check", "--format", "json", local(good_), local(bad_)});
  ASSERT_EQ(local_run.exit_code, 1) << local_run.err;
  auto want = verdict_of(local_run.out);
  ASSERT_EQ(want.front(), "pass") << "the good wheel (a 16 MiB entry read in many input blocks) passes locally: "
                                  << local_run.out;
  std::vector<std::pair<std::string, const ChildServer*>> servers = {{"fault server /ok/", faults_}};
  if (nginx_->up()) servers.push_back({"nginx", nginx_});
  if (plain_->up()) servers.push_back({"python http.server (no Range)", plain_});
  for (const auto& [what, server] : servers) {
    std::string prefix = server == faults_ ? "ok/" : "";
    auto r = wc({"check", "--format", "json", server->url(prefix + good_), server->url(prefix + bad_)});
    EXPECT_EQ(r.exit_code, 1) << what << ": " << r.err;
    EXPECT_EQ(verdict_of(r.out), want) << what;
  }
  if (!nginx_->up()) GTEST_SKIP() << "nginx did not start: " << slurp(dir_->file("nginx.err"));
}

TEST_F(RemoteFaults, MetadataDepthMovesUnderOnePercent) {
  const ChildServer* s = nginx_->up() ? nginx_ : faults_;
  std::string prefix = s == faults_ ? "ok/" : "";
  auto r = wc({"check", "--depth", "metadata", "--format", "json", s->url(prefix + good_)});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto w = json::parse(r.out)["wheels"][0];
  uint64_t size = w["size"], read = w["bytes_read"];
  EXPECT_LT(read * 100, size) << "read " << read << " of " << size << " bytes";
  EXPECT_GT(read, 0u);
  // inspect at the same depth: the facts of a remote wheel for a few range requests.
  auto facts = wc({"inspect", "--depth", "metadata", "--format", "json", s->url(prefix + good_)});
  ASSERT_EQ(facts.exit_code, 0) << facts.err;
  auto fj = json::parse(facts.out)["wheels"][0];
  EXPECT_EQ(fj["depth"], "metadata");
  EXPECT_EQ(fj["filename"]["canonical_name"], "demo");
  auto text = wc({"check", "--depth", "metadata", s->url(prefix + good_)});
  EXPECT_NE(text.out.find(" of 16.8 MB"), std::string::npos) << "the text report says how much was read: " << text.out;
}

// A full check streams the body once, in order: bytes read are the file's, the one-byte probe,
// and (a file of 8 MiB or more) at most 1% more: its end, where the central directory lies, asked
// for by range on a second connection while the body streams, so the entries are read as they
// arrive. Whatever the number of entries; the spool it goes through leaves nothing in TMPDIR.
TEST_F(RemoteFaults, AFullCheckStreamsTheBodyOnce) {
  std::vector<std::pair<std::string, const ChildServer*>> servers = {{"fault server", faults_}};
  if (nginx_->up()) servers.push_back({"nginx", nginx_});
  TempDir tmp;
  for (const auto& [what, s] : servers) {
    std::string prefix = s == faults_ ? "ok/" : "";
    auto r = wc({"check", "--format", "json", s->url(prefix + good_)}, "TMPDIR=" + shell_quote(tmp.path()));
    ASSERT_EQ(r.exit_code, 0) << what << ": " << r.out << r.err;
    auto w = json::parse(r.out)["wheels"][0];
    uint64_t size = w["size"], read = w["bytes_read"];
    EXPECT_LE(read, size + 1 + size / 100) << what << ": the body, the probe's byte, the end at most 1% again";
    EXPECT_GE(read, size) << what;
    EXPECT_GE(w["requests"], 2u) << what << ": the probe and one streamed GET";
    EXPECT_LE(w["requests"], 4u) << what << ": and the file's end by range, in one or two requests";
    EXPECT_LE(w["connections"], 2u) << what;
  }
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path())) << "the spool file is unnamed: nothing is left in TMPDIR";
  std::string log = requests();
  EXPECT_NE(log.find("/ok/" + good_ + " bytes=0-0\n"), std::string::npos) << log;
  EXPECT_NE(log.find("/ok/" + good_ + " bytes=0-" + std::to_string(std::filesystem::file_size(local(good_)) - 1)),
            std::string::npos)
      << log;
}

// A full check reads the entries while the body streams (the central directory first, each entry
// as it lands, the layout checked once the last byte is in): the facts are the local file's, byte
// for byte, on a wheel read that way (a 16 MiB entry, an ELF, the end fetched by range), on one
// whose RECORD asks for sha512 (digested after RECORD is read), and on archives whose local
// headers or layout disagree with the central directory (read again the usual way, from the
// spool): a data descriptor that lies, a local header whose flags differ, overlapping entries.
TEST_F(RemoteFaults, AStreamedReadHasTheLocalFilesFacts) {
  std::vector<std::string> names = {good_};
  auto put = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(local(name), std::ios::binary) << bytes;
    names.push_back(name);
  };
  {
    Digest d("sha512");
    d.update("x = 1\n", 6);
    const std::string sha512 = "sha512=" + d.digest_b64();
    auto w = WheelBuilder("digests", "1.0").add("digests/__init__.py", "x = 1\n").edit_record([&](auto& rows) {
      for (auto& r : rows)
        if (r[0] == "digests/__init__.py") r[1] = sha512;
    });
    auto bytes = w.build();
    put(w.filename(), std::string(bytes.begin(), bytes.end()));
  }
  put("lying_descriptor-1.0-py3-none-any.whl", testing::descriptor_wheel(true));
  {
    testing::RawEntry flipped = testing::raw_file("flipped/__init__.py", "y = 2\n", true);
    flipped.local_flags_xor = 0x0800;  // the local header says another name encoding
    auto entries = testing::raw_wheel_entries("flipped", {flipped});
    put("flipped-1.0-py3-none-any.whl", testing::raw_zip(entries));
  }
  put("bomb-1.0-py3-none-any.whl", testing::overlapping_bomb(8, 1 << 16));
  auto facts = [](const std::string& out) {
    auto j = json::parse(out, nullptr, false);
    if (j.is_discarded() || !j.contains("wheels")) return json();
    json w = j["wheels"][0];
    for (const char* k : {"path", "bytes_read", "requests", "connections"}) w.erase(k);
    return w;
  };
  std::vector<std::pair<std::string, const ChildServer*>> servers = {{"fault server /ok/", faults_}};
  if (nginx_->up()) servers.push_back({"nginx", nginx_});
  for (const auto& name : names) {
    auto here = wc({"inspect", "--format", "json", local(name)});
    ASSERT_EQ(here.exit_code, 0) << name << ": " << here.err;
    const json want = facts(here.out);
    ASSERT_FALSE(want.is_null()) << here.out;
    // And the findings (they read what inspect does not show: the sha512 RECORD asks for).
    auto judged = wc({"check", "--format", "json", local(name)});
    const auto verdict = verdict_of(judged.out);
    for (const auto& [what, server] : servers) {
      const std::string url = server->url((server == faults_ ? "ok/" : "") + name);
      auto there = wc({"inspect", "--format", "json", url});
      EXPECT_EQ(facts(there.out), want) << what << ": " << name << "\n" << there.err;
      EXPECT_EQ(verdict_of(wc({"check", "--format", "json", url}).out), verdict) << what << ": " << name;
    }
  }
}

// A stream cut halfway is resumed where it stopped (a range from the first missing byte), and the
// verdict is the local file's.
TEST_F(RemoteFaults, ACutStreamResumesWhereItStopped) {
  auto r = wc({"check", "--format", "json", faults_->url("cutonce/" + good_)});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto w = json::parse(r.out)["wheels"][0];
  uint64_t size = w["size"], read = w["bytes_read"];
  EXPECT_LE(read, size + 1 + size / 100) << "no byte of the body fetched twice (the end by range aside)";
  std::string log = requests();
  const uint64_t last = std::filesystem::file_size(local(good_)) - 1;
  std::string resumed = "/cutonce/" + good_ + " bytes=" + std::to_string((last + 1) / 2) + "-" + std::to_string(last);
  EXPECT_NE(log.find(resumed), std::string::npos) << "expected a resume at the half: " << log;
}

// Metadata depth plans its reads from the central directory: the headers and first bytes of many
// binaries go out in a few coalesced requests, or (gap 0) in parallel over a bounded number of
// connections, and the verdict is the same either way.
TEST_F(RemoteFaults, MetadataDepthCoalescesPlannedRanges) {
  const ChildServer* s = nginx_->up() ? nginx_ : faults_;
  std::string prefix = s == faults_ ? "ok/" : "";
  std::string so = slurp(dir_->file("lib.so"));
  ASSERT_FALSE(so.empty());
  WheelBuilder b("many", "1.0", "cp312-cp312-manylinux_2_17_x86_64");
  b.purelib(false);
  std::string filler;
  uint32_t x = 5;
  for (int i = 0; i < 40 << 10; ++i) filler.push_back(static_cast<char>((x = x * 1664525 + 1013904223) >> 24));
  for (int i = 0; i < 40; ++i)
    b.add("many/_m" + std::to_string(i) + ".so", so).add("many/blob" + std::to_string(i) + ".bin", filler);
  std::string name = std::filesystem::path(b.write(dir_->file("www"))).filename().string();
  auto local_run = wc({"check", "--depth", "metadata", "--format", "json", local(name)});
  ASSERT_EQ(local_run.exit_code, 0) << local_run.out;
  auto planned = wc({"check", "--depth", "metadata", "--format", "json", s->url(prefix + name)});
  ASSERT_EQ(planned.exit_code, 0) << planned.out << planned.err;
  EXPECT_EQ(verdict_of(planned.out), verdict_of(local_run.out));
  auto w = json::parse(planned.out)["wheels"][0];
  // The probe, the end record, the central directory, and one coalesced read of 40 binaries.
  EXPECT_LE(w["requests"].get<uint64_t>(), 6u) << w.dump(1);
  auto apart = wc({"check", "--depth", "metadata", "--format", "json", s->url(prefix + name)},
                  "WHEELCHECK_HTTP_COALESCE_GAP=0 WHEELCHECK_HTTP_CONNECTIONS=3");
  ASSERT_EQ(apart.exit_code, 0) << apart.out << apart.err;
  EXPECT_EQ(verdict_of(apart.out), verdict_of(local_run.out));
  auto a = json::parse(apart.out)["wheels"][0];
  EXPECT_GE(a["requests"].get<uint64_t>(), 40u) << "one range per binary without coalescing: " << a.dump(1);
  EXPECT_LE(a["connections"].get<uint64_t>(), 4u) << "at most 3 in parallel, and the first one: " << a.dump(1);
  EXPECT_GE(a["connections"].get<uint64_t>(), 2u) << "the ranges went out in parallel: " << a.dump(1);
}

TEST_F(RemoteFaults, NotFoundIsAFindingAndTheBatchGoesOn) {
  const ChildServer* s = nginx_->up() ? nginx_ : faults_;
  std::string prefix = s == faults_ ? "ok/" : "";
  auto r = wc({"check", s->url(prefix + "missing-1.0-py3-none-any.whl"), s->url(prefix + good_)});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("WC404"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("HTTP status 404 (not found)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PASS  " + s->url(prefix + good_)), std::string::npos) << r.out;
}

TEST_F(RemoteFaults, ServerErrorThenSuccessIsRetried) {
  auto r = wc({"check", faults_->url("flaky/" + good_)});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string log = requests();
  size_t asked = 0;
  for (size_t at = 0; (at = log.find("GET /flaky/" + good_ + " bytes=0-0", at)) != std::string::npos; ++at) ++asked;
  EXPECT_EQ(asked, 2u) << "one 500, one retry: " << log;
}

TEST_F(RemoteFaults, EachBrokenReplyIsAFindingNamingIt) {
  struct Case {
    std::string path, expect;
  } cases[] = {
      {"short/" + good_, "the body was cut short"},
      {"badrange/" + good_, "the reply says Content-Range 'bytes "},
      {"loop/" + good_, "more than 10 redirects (a redirect loop?)"},
      {"auth/" + good_, "HTTP status 401 (unauthorized"},
  };
  for (const auto& c : cases) {
    auto start = std::chrono::steady_clock::now();
    auto r = wc({"check", faults_->url(c.path)});
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.exit_code, 1) << c.path << ": " << r.err;
    EXPECT_NE(r.out.find("WC404"), std::string::npos) << c.path << ": " << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.path << ": " << r.out;
    EXPECT_LT(secs, 20) << c.path;
  }
}

TEST_F(RemoteFaults, AStalledTransferEndsAtTheTimeout) {
  auto start = std::chrono::steady_clock::now();
  auto r = wc({"check", faults_->url("stall/" + good_)}, "WHEELCHECK_HTTP_RETRIES=0");
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("the server stalled ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" in 2 s; WHEELCHECK_HTTP_TIMEOUT sets it"), std::string::npos) << r.out;
  EXPECT_LT(secs, 15) << "bounded by the timeout, not the server";
}

TEST_F(RemoteFaults, RedirectToAnotherPathIsFollowed) {
  const ChildServer* s = nginx_->up() ? nginx_ : faults_;
  auto r = wc({"check", s->url("moved/" + good_)});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_F(RemoteFaults, CredentialsFromTheEnvironmentOrNetrcAreNeverShown) {
  auto bearer =
      wc({"check", "--format", "json", faults_->url("auth/" + good_)}, "WHEELCHECK_HTTP_AUTHORIZATION='Bearer s3cret'");
  EXPECT_EQ(bearer.exit_code, 0) << bearer.out << bearer.err;
  EXPECT_EQ((bearer.out + bearer.err).find("s3cret"), std::string::npos);
  std::string netrc = dir_->file("netrc");
  std::string text = "machine 127.0.0.1 login user password pw\n";
  testing::write_file(netrc, std::vector<uint8_t>(text.begin(), text.end()));
  auto viarc = wc({"check", faults_->url("auth/" + good_)}, "NETRC=" + shell_quote(netrc));
  EXPECT_EQ(viarc.exit_code, 0) << viarc.out << viarc.err;
  // user:password in the URL works, and is shown nowhere.
  std::string url = "http://user:pw@127.0.0.1:" + std::to_string(faults_->port()) + "/auth/" + good_;
  auto inurl = wc({"check", "--format", "json", url});
  EXPECT_EQ(inurl.exit_code, 0) << inurl.out << inurl.err;
  EXPECT_EQ((inurl.out + inurl.err).find("user:pw"), std::string::npos) << inurl.out;
}

TEST_F(RemoteFaults, IndexMetadataAtMetadataDepthNeverTouchesTheWheel) {
  std::string before = requests();
  auto r = wc({"check", "--depth", "metadata", "--format", "json", faults_->url("simple/demo/")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // demo 1.1's RECORD lie needs the wheel: not read here
  auto j = json::parse(r.out);
  ASSERT_EQ(j["wheels"].size(), 2u);
  for (const auto& w : j["wheels"]) EXPECT_LT(w["bytes_read"].get<uint64_t>(), 2000u);
  std::string log = requests().substr(before.size());
  EXPECT_NE(log.find(".whl.metadata"), std::string::npos) << log;
  for (size_t at = 0; (at = log.find(".whl ", at)) != std::string::npos; ++at)
    ADD_FAILURE() << "a wheel was fetched: " << log;
  // At full depth the same index reads the wheels and finds the lie.
  auto full = wc({"check", faults_->url("simple/demo/")});
  EXPECT_EQ(full.exit_code, 1) << full.out;
  EXPECT_NE(full.out.find("WC303"), std::string::npos) << full.out;
}

// Bytes that keep arriving, just over the stall limit, end at the wheel's wall-clock limit: a
// finding that says what was seen, in bounded time, whether the server honours Range or not.
TEST_F(RemoteFaults, ADrippingServerEndsAtTheWheelLimit) {
  for (std::string mode : {"drip", "drip200"}) {
    auto start = std::chrono::steady_clock::now();
    auto r = wc({"check", faults_->url(mode + "/" + good_), faults_->url("ok/" + good_)},
                "WHEELCHECK_HTTP_WHEEL_TIMEOUT=4 WHEELCHECK_HTTP_RETRIES=0");
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.exit_code, 1) << mode << ": " << r.err;
    EXPECT_NE(r.out.find("the time limit of 4 s for one wheel or index page ran out"), std::string::npos)
        << mode << ": " << r.out;
    EXPECT_NE(r.out.find("KiB/s"), std::string::npos) << mode << ": the finding says how fast bytes came: " << r.out;
    EXPECT_NE(r.out.find("PASS  " + faults_->url("ok/" + good_)), std::string::npos) << mode << ": " << r.out;
    EXPECT_LT(secs, 30) << mode << ": bounded by the limit, not by the server";
  }
  // The per-request limit alone, with the wheel's limit left long: it bounds each range request
  // (metadata depth); a full check's one streamed body is bounded by the wheel's limit above.
  auto r = wc({"check", "--depth", "metadata", faults_->url("drip/" + good_)},
              "WHEELCHECK_HTTP_REQUEST_TIMEOUT=3 WHEELCHECK_HTTP_RETRIES=0");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("one request ran past its limit of 3 s, the bytes still arriving"), std::string::npos) << r.out;
}

// Index pages that fail are findings on the page; the rest of the run goes on, and retries say
// what each attempt saw.
TEST_F(RemoteFaults, AFailingIndexPageIsAFindingAndTheRunGoesOn) {
  struct Case {
    std::string page, expect;
  } cases[] = {
      {"down/simple/demo/", "HTTP status 503 (server error) [3 attempts: HTTP 503; HTTP 503; HTTP 503]"},
      {"loop/simple/demo/", "more than 10 redirects"},
      {"shortpage/demo/", "the body was cut short"},
  };
  for (const auto& c : cases) {
    auto r = wc({"check", "--format", "json", faults_->url(c.page), faults_->url("ok/" + good_)});
    EXPECT_EQ(r.exit_code, 1) << c.page << ": " << r.err;
    auto j = json::parse(r.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << c.page << ": " << r.out << r.err;
    ASSERT_EQ(j["wheels"].size(), 2u) << c.page << ": " << r.out;
    EXPECT_EQ(j["wheels"][0]["path"], faults_->url(c.page));
    EXPECT_EQ(j["wheels"][0]["findings"][0]["rule"], "WC404") << c.page;
    EXPECT_NE(j["wheels"][0]["findings"][0]["message"].get<std::string>().find(c.expect), std::string::npos)
        << c.page << ": " << j["wheels"][0].dump(1);
    EXPECT_EQ(j["wheels"][1]["verdict"], "pass") << c.page;
  }
}

// A page of a million links (45 MB, under the page-size cap) is read in bounded memory: --match
// filters while parsing, and a cap says how many links were left out.
TEST_F(RemoteFaults, AHugeIndexPageIsCappedAndFiltered) {
  auto matched = wc({"check", "--depth", "metadata", "--format", "json", "--match", "p-99999[89]-*",
                     faults_->url("hugeindex/1000000/")});
  auto j = json::parse(matched.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << matched.out << matched.err;
  EXPECT_EQ(j["wheels"].size(), 2u) << "only the two matching links become targets";
  auto capped = wc({"check", "--depth", "metadata", "--format", "json", faults_->url("hugeindex/1000000/")},
                   "WHEELCHECK_INDEX_MAX_LINKS=3");
  auto k = json::parse(capped.out, nullptr, false);
  ASSERT_TRUE(k.is_object()) << capped.out << capped.err;
  EXPECT_EQ(k["wheels"].size(), 3u);
  ASSERT_EQ(k["target_notes"].size(), 1u) << k.dump(1);
  EXPECT_NE(k["target_notes"][0].get<std::string>().find("999997 of its 1000000 wheel and sdist links were left out"),
            std::string::npos)
      << k["target_notes"];
}

// The remote cases together in one `-j 2` run: each target keeps its own finding, the good wheel
// passes, and the run ends.
TEST_F(RemoteFaults, OneBatchTwoWorkers) {
  std::vector<std::pair<std::string, std::string>> want = {
      {faults_->url("drip/" + good_), "the time limit of 4 s for one wheel or index page ran out"},
      {faults_->url("down/simple/demo/"), "HTTP status 503"},
      {faults_->url("loop/simple/demo/"), "more than 10 redirects"},
      {faults_->url("shortpage/demo/"), "the body was cut short"},
      {faults_->url("stall/" + good_), " for 2 s"},  // the first attempt stalled: no bytes, or under 1 KiB/s
      {faults_->url("ok/" + good_), ""},
  };
  std::vector<std::string> args = {"check", "-j", "2", "--format", "json"};
  for (const auto& [url, msg] : want) args.push_back(url);
  auto r = wc(args, "WHEELCHECK_HTTP_WHEEL_TIMEOUT=4 WHEELCHECK_HTTP_RETRIES=1");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out << r.err;
  ASSERT_EQ(j["wheels"].size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& w = j["wheels"][i];
    EXPECT_EQ(w["path"], want[i].first);
    if (want[i].second.empty()) {
      EXPECT_EQ(w["verdict"], "pass") << w.dump(1);
      continue;
    }
    EXPECT_NE(w["findings"].dump().find(want[i].second), std::string::npos) << want[i].first << ": " << w.dump(1);
  }
}

// One connection serves a wheel's range requests (and the next wheel of the same host): the
// report says how many requests went over how many new connections.
TEST_F(RemoteFaults, ConnectionsAreReused) {
  const ChildServer* s = nginx_->up() ? nginx_ : faults_;
  std::string prefix = s == faults_ ? "ok/" : "";
  auto r = wc({"check", "--format", "json", "-j", "1", s->url(prefix + good_), s->url(prefix + bad_)});
  auto j = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out << r.err;
  uint64_t requests = 0, connections = 0;
  for (const auto& w : j["wheels"]) {
    requests += w.value("requests", 0u);
    connections += w.value("connections", 0u);
  }
  EXPECT_GE(requests, 4u) << j.dump(1);
  EXPECT_LE(connections, 2u) << "requests " << requests << " over " << connections << " connections";
  auto text = wc({"check", s->url(prefix + good_)});
  EXPECT_NE(text.out.find(" new connection"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace wc
