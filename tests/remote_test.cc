// Wheels over HTTP (a loopback server, always) and real wheels from PyPI (downloaded at test
// time into a cache; skipped when there is no network).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "facts/analyze.h"
#include "io/targets.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::run_command;
using testing::run_wheelcheck;
using testing::shell_quote;

// python3's http.server (it ignores Range: the whole-download path), or the range-capable one.
class LoopbackServer {
 public:
  explicit LoopbackServer(const std::string& dir, bool ranges = false)
      : server_(ranges ? testing::range_server_argv()
                       : std::vector<std::string>{"python3", "-m", "http.server", "{port}", "--bind", "127.0.0.1"},
                dir) {}
  bool up() const { return server_.up(); }
  std::string url(const std::string& file) const { return server_.url(file); }

 private:
  testing::ChildServer server_;
};

TEST(Remote, RangeRequestsReadTheWheel) {
  testing::TempDir d;
  // Over the source's 1 MiB block, so several ranges are fetched.
  std::string blob;
  uint32_t x = 7;
  for (int i = 0; i < 3 << 20; ++i) blob.push_back(static_cast<char>((x = x * 1664525 + 1013904223) >> 24));
  testing::WheelBuilder b("ranged", "2.0");
  b.add("ranged/__init__.py", "").add("ranged/blob.bin", blob).write(d.path());
  auto broken = b.build();
  broken[broken.size() / 2] ^= 0xff;  // corrupt a byte inside blob.bin's data
  testing::write_file(d.file("bad-2.0-py3-none-any.whl"), broken);
  LoopbackServer server(d.path(), /*ranges=*/true);
  if (!server.up()) GTEST_SKIP() << "could not start a loopback HTTP server";
  auto r = run_wheelcheck({"check", server.url(b.filename())});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto bad = run_wheelcheck({"check", server.url("bad-2.0-py3-none-any.whl")});
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
}

TEST(Remote, LoopbackHttpWheel) {
  testing::TempDir d;
  testing::WheelBuilder good("web-pkg", "1.0+cu128");
  good.add("web_pkg/__init__.py", "x = 1\n").write(d.path());
  LoopbackServer server(d.path());
  if (!server.up()) GTEST_SKIP() << "could not start python3 -m http.server on loopback";
  // '+' percent-encoded as PyPI's URLs do; the file name is read from the decoded path.
  auto r = run_wheelcheck({"check", server.url("web_pkg-1.0%2Bcu128-py3-none-any.whl"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["wheels"][0]["verdict"], "pass");
  auto missing = run_wheelcheck({"check", server.url("missing-1.0-py3-none-any.whl")});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.out.find("WC404"), std::string::npos) << missing.out;
  EXPECT_NE(missing.out.find("HTTP status 404"), std::string::npos) << missing.out;
}

TEST(Remote, PackageIndexPages) {
  testing::TempDir d;
  std::filesystem::create_directories(d.file("simple/demo"));
  std::string a = testing::WheelBuilder("demo", "1.0").add("demo/__init__.py", "").write(d.file("files"));
  std::string b = testing::WheelBuilder("demo", "1.1", "cp312-cp312-manylinux_2_17_x86_64")
                      .purelib(false)
                      .add("demo/__init__.py", "")
                      .write(d.file("files"));
  std::string html =
      "<!DOCTYPE html><html><body>\n"
      "<a href=\"../../files/demo-1.0-py3-none-any.whl#sha256=abc\" "
      "data-requires-python=\"&gt;=3.8\">demo-1.0-py3-none-any.whl</a><br/>\n"
      "<a "
      "href=\"/files/demo-1.1-cp312-cp312-manylinux_2_17_x86_64.whl\">demo-1.1-cp312-cp312-manylinux_2_17_x86_64.whl</"
      "a>\n"
      "<a href=\"../../files/demo-1.0.tar.gz\">demo-1.0.tar.gz</a></body></html>\n";
  testing::write_file(d.file("simple/demo/index.html"), std::vector<uint8_t>(html.begin(), html.end()));
  // The sdist the page lists is a member of the run too (issue 50), streamed like a wheel.
  testing::write_sdist(d.file("files/demo-1.0.tar.gz"), "demo-1.0",
                       "Metadata-Version: 2.4\nName: demo\nVersion: 1.0\nSummary: test wheel\n\n");
  std::string json = R"({"meta": {"api-version": "1.1"}, "name": "demo", "files": [
      {"filename": "demo-1.0-py3-none-any.whl", "url": "../../files/demo-1.0-py3-none-any.whl", "hashes": {"sha256": "abc"}}]})";
  std::filesystem::create_directories(d.file("json/demo"));
  testing::write_file(d.file("json/demo/index.html"), std::vector<uint8_t>(json.begin(), json.end()));
  LoopbackServer server(d.path());
  if (!server.up()) GTEST_SKIP() << "could not start a loopback HTTP server";
  auto r = run_wheelcheck({"check", server.url("simple/demo/"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["wheels"].size(), 3u);
  EXPECT_EQ(j["wheels"][1]["path"], server.url("files/demo-1.1-cp312-cp312-manylinux_2_17_x86_64.whl"));
  EXPECT_EQ(j["wheels"][2]["path"], server.url("files/demo-1.0.tar.gz"));
  EXPECT_EQ(j["wheels"][2]["kind"], "sdist");
  EXPECT_EQ(j["wheels"][2]["verdict"], "pass") << j["wheels"][2].dump();
  auto m = run_wheelcheck({"check", server.url("simple/demo/"), "--match", "*manylinux*", "--format", "json"});
  EXPECT_EQ(nlohmann::json::parse(m.out)["wheels"].size(), 1u);
  auto js = run_wheelcheck({"check", server.url("json/demo/")});
  EXPECT_EQ(js.exit_code, 0) << js.out << js.err;
  EXPECT_NE(js.out.find("demo-1.0-py3-none-any.whl"), std::string::npos);
  auto none = run_wheelcheck({"check", server.url("simple/demo/"), "--match", "*win*"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("lists no wheels or sdists matching"), std::string::npos) << none.err;
  // A page that cannot be read is a finding on that page (the run goes on), not a usage error.
  auto nope = run_wheelcheck({"check", server.url("nope/")});
  EXPECT_EQ(nope.exit_code, 1) << nope.err;
  EXPECT_NE(nope.out.find("WC404"), std::string::npos) << nope.out;
  EXPECT_NE(nope.out.find("HTTP status 404"), std::string::npos) << nope.out;
}

// A file whose bytes are not the ones the index page hashes is WC407 (pip refuses it): the body is
// hashed as it streams (a server that honours ranges and one that does not), the wheel and the
// sdist alike; a page with the right hashes passes. At --depth metadata nothing is hashed.
TEST(Remote, IndexHashIsTheBytesServed) {
  testing::TempDir d;
  std::filesystem::create_directories(d.file("files"));
  const std::string wheel =
      std::filesystem::path(testing::WheelBuilder("demo", "1.0").add("demo/__init__.py", "").write(d.file("files")))
          .filename();
  testing::write_sdist(d.file("files/demo-1.0.tar.gz"), "demo-1.0",
                       "Metadata-Version: 2.4\nName: demo\nVersion: 1.0\nSummary: test wheel\n\n");
  auto sha = [&](const std::string& file) {
    auto r = testing::run_command("sha256sum " + testing::shell_quote(d.file("files/" + file)));
    return r.out.substr(0, 64);
  };
  const std::string wrong(64, 'e');
  auto page = [&](const std::string& dir, const std::string& wheel_hash, const std::string& sdist_hash) {
    std::filesystem::create_directories(d.file(dir));
    std::string html = "<a href=\"../../files/" + wheel + "#sha256=" + wheel_hash + "\">" + wheel +
                       "</a>\n<a href=\"../../files/demo-1.0.tar.gz#sha256=" + sdist_hash + "\">demo-1.0.tar.gz</a>\n";
    testing::write_file(d.file(dir + "/index.html"), std::vector<uint8_t>(html.begin(), html.end()));
  };
  page("good/demo", sha(wheel), sha("demo-1.0.tar.gz"));
  page("bad/demo", wrong, wrong);
  for (bool ranges : {true, false}) {
    LoopbackServer server(d.path(), ranges);
    if (!server.up()) GTEST_SKIP() << "could not start a loopback HTTP server";
    auto good = run_wheelcheck({"check", server.url("good/demo/")});
    EXPECT_EQ(good.exit_code, 0) << "ranges " << ranges << "\n" << good.out << good.err;
    EXPECT_EQ(good.out.find("WC407"), std::string::npos) << good.out;
    auto bad = run_wheelcheck({"check", "--format", "json", server.url("bad/demo/")});
    EXPECT_EQ(bad.exit_code, 1) << bad.err;
    const auto j = nlohmann::json::parse(bad.out);
    ASSERT_EQ(j["wheels"].size(), 2u) << bad.out;
    for (const auto& w : j["wheels"]) {
      bool flagged = false;
      for (const auto& f : w["findings"])
        flagged |= f["rule"] == "WC407" &&
                   f["message"].get<std::string>().find("index page gives " + wrong) != std::string::npos;
      EXPECT_TRUE(flagged) << "ranges " << ranges << ": " << w.dump();
    }
    // Metadata depth reads a few ranges of the wheel: no hash, no WC407 on it. (A server that ignores
    // Range sends it whole, and what was downloaded whole is hashed.)
    auto shallow = run_wheelcheck({"check", "--depth", "metadata", "--format", "json", server.url("bad/demo/")});
    const auto sj = nlohmann::json::parse(shallow.out);
    EXPECT_EQ(sj["wheels"][0]["findings"].dump().find("WC407") == std::string::npos, ranges) << shallow.out;
    // A URL given directly has no digest to be held against: its body streams unhashed
    // (AnalyzeOptions::hash_body), and nothing else of its facts changes.
    AnalyzeOptions hashed, unhashed;
    unhashed.hash_body = false;
    WheelFacts h = analyze_target(server.url("files/" + wheel), hashed);
    WheelFacts u = analyze_target(server.url("files/" + wheel), unhashed);
    EXPECT_EQ(h.content_sha256, sha(wheel)) << "ranges " << ranges;
    EXPECT_EQ(u.content_sha256, "") << "ranges " << ranges;
    ASSERT_EQ(u.entries.size(), h.entries.size());
    for (size_t i = 0; i < h.entries.size(); ++i) EXPECT_EQ(u.entries[i].sha256, h.entries[i].sha256);
    auto direct = run_wheelcheck({"check", server.url("files/" + wheel)});
    EXPECT_EQ(direct.exit_code, 0) << direct.out << direct.err;
  }
}

// A page of a million files, HTML and PEP 691 JSON alike: links are filtered while parsing, at most
// the cap are kept, and every link is counted.
TEST(Remote, HugeIndexPagesAreFilteredAndCappedWhileParsed) {
  std::string html, json = R"({"meta": {"api-version": "1.1"}, "name": "p", "files": [)";
  for (int i = 0; i < 1000000; ++i) {
    std::string name = "p-" + std::to_string(i) + "-py3-none-any.whl";
    html += "<a href=\"/f/" + name + "\">" + name + "</a>\n";
    json += std::string(i ? "," : "") + R"({"filename": ")" + name + R"(", "url": "/f/)" + name + R"("})";
  }
  json += "]}";
  for (const std::string* body : {&html, &json}) {
    auto page = parse_index_page(*body, "http://127.0.0.1:1/simple/p/", {}, 1000);
    EXPECT_EQ(page.seen, 1000000u);
    EXPECT_EQ(page.links.size(), 1000u);
    EXPECT_EQ(page.left_out, 999000u);
    EXPECT_EQ(page.links[999].url, "http://127.0.0.1:1/f/p-999-py3-none-any.whl");
    auto some = parse_index_page(
        *body, "http://127.0.0.1:1/simple/p/", [](std::string_view n) { return n.starts_with("p-77777"); }, 1000);
    EXPECT_EQ(some.links.size(), 11u);  // p-77777 and p-777770 ... p-777779
    EXPECT_EQ(some.left_out, 0u);
  }
}

// A reply nesting 200,000 objects inside a file object (a key of its own, its hashes) or beside
// the files: walked past in linear time (nlohmann's parser callback rescans a container after each
// object it closes: quadratic, minutes), the links still read.
TEST(Remote, IndexRepliesNestingManyObjectsAreWalkedPast) {
  std::string many;
  for (int i = 0; i < 200000; ++i) many += std::string(i ? "," : "") + "{}";
  const std::string name = "p-1.0-py3-none-any.whl";
  for (const std::string& body :
       {R"({"files": [{"filename": ")" + name + R"(", "url": "/f/)" + name + R"(", "junk": [)" + many + "]}]}",
        R"({"files": [{"filename": ")" + name + R"(", "url": "/f/)" + name + R"(", "hashes": {"x": [)" + many +
            R"(], "sha256": "AB"}}]})",
        R"({"meta": [)" + many + R"(], "files": [{"filename": ")" + name + R"(", "url": "/f/)" + name + R"("}]})"}) {
    auto page = parse_index_page(body, "http://127.0.0.1:1/simple/p/", {}, 10);
    ASSERT_EQ(page.links.size(), 1u);
    EXPECT_EQ(page.links[0].filename, name);
  }
}

// ---- PyPI ---------------------------------------------------------------------------------------

// The real index (PEP 691 JSON) and a wheel read from it with range requests; skipped offline.
TEST(Remote, PyPIIndexPage) {
  auto idx = run_wheelcheck({"check", "https://pypi.org/simple/six/", "--match", "six-1.16.0-*"});
  if (idx.exit_code == 2 && idx.err.find("https://pypi.org/simple/six/: ") != std::string::npos)
    GTEST_SKIP() << "PyPI's index did not answer: " << idx.err;
  EXPECT_EQ(idx.exit_code, 0) << idx.out << idx.err;
  EXPECT_NE(idx.out.find("PASS  https://files.pythonhosted.org/"), std::string::npos) << idx.out;
}

}  // namespace
}  // namespace wc

namespace wc {
namespace {

// PEP 825: the index page links {name}-{version}-variants.json beside the variant wheels; it is read
// whole, its hash fragment checked, and compared with the wheels' declarations (WC806).
TEST(Remote, VariantIndexFileFromTheIndexPage) {
  testing::TempDir d;
  std::filesystem::create_directories(d.file("simple/gpukit"));
  const std::string doc = R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["x86_64"]}, "providers": {"x86_64": {"requires": ["provider-variant-x86-64"]}},
    "variants": {"v3": {"x86_64": {"level": ["v3"]}}}})";
  testing::WheelBuilder w("gpukit", "1.0", "py3-none-any");
  w.filename("gpukit-1.0-py3-none-any-v3.whl");
  w.add("gpukit/__init__.py", "").add(w.dist_info() + "/variant.json", doc);
  w.write(d.file("files"));
  std::string index = doc;
  index.replace(index.find("[\"v3\"]"), 6, "[\"v2\"]");
  testing::write_file(d.file("files/gpukit-1.0-variants.json"), std::vector<uint8_t>(index.begin(), index.end()));
  std::string html =
      "<a href=\"../../files/gpukit-1.0-py3-none-any-v3.whl\">gpukit-1.0-py3-none-any-v3.whl</a>\n"
      "<a href=\"../../files/gpukit-1.0-variants.json#sha256=nothex\">gpukit-1.0-variants.json</a>\n";
  testing::write_file(d.file("simple/gpukit/index.html"), std::vector<uint8_t>(html.begin(), html.end()));
  LoopbackServer server(d.path());
  if (!server.up()) GTEST_SKIP() << "could not start a loopback HTTP server";
  auto r = run_wheelcheck({"check", server.url("simple/gpukit/"), "--format", "json"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["wheels"].size(), 1u);  // the index file is not a wheel
  std::string set = j["set"].dump();
  EXPECT_NE(set.find("malformed hash fragment '#sha256=nothex'"), std::string::npos) << set;
  EXPECT_NE(
      set.find(
          "gives 'v3' {x86_64 :: level :: v2}, but gpukit-1.0-py3-none-any-v3.whl declares {x86_64 :: level :: v3}"),
      std::string::npos)
      << set;
}

}  // namespace
}  // namespace wc
