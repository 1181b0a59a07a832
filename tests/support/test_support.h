#pragma once

#include <string>
#include <vector>

#include "binary/dynamic_symbols.h"
#include "facts/wheel_facts.h"
#include "rules/rules.h"

namespace wc::testing {

// A fresh directory under the build tree's temp area, removed at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Sets an environment variable until destruction, then puts back what it was (or unsets it).
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  void set(const std::string& value) const;

 private:
  std::string name_, was_;
  bool had_ = false;
};

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs a command line through /bin/sh; captures stdout and stderr.
RunResult run_command(const std::string& cmd);
// Runs the wheelcheck binary with arguments (each shell-quoted).
RunResult run_wheelcheck(const std::vector<std::string>& args);
std::string shell_quote(const std::string& s);
// An executable `dir/python-MODE` that runs `script` (Python source, written beside it) under
// python3 with MODE as its argument: a fake interpreter for wheelsmoke's artifact mode.
std::string fake_interpreter(const TempDir& dir, const char* script, const std::string& mode);

// An sdist at `path` written by Python's tarfile (gzip): `top`/PKG-INFO holding `pkg_info` and
// `top`/src/m.py. A failed write is the test's failure.
void write_sdist(const std::string& path, const std::string& top, const std::string& pkg_info);

// Validates report files against their consumers' schemas (tests/tools/validate_reports.py): *.xml
// against Jenkins xunit-plugin's junit-10.xsd, *.sarif against the OASIS SARIF 2.1.0 schema.
// Returns the complaints ("" when every file is valid); `unavailable` is set when the schemas could
// not be fetched (PyPI unreachable: the caller skips).
std::string schema_complaints(const std::vector<std::string>& files, bool* unavailable);

// Analyses bytes as a wheel called `filename` and checks it with a policy (default: "default").
WheelFacts facts_of(const std::vector<uint8_t>& zip, const std::string& filename);
std::vector<Finding> findings_of(const std::vector<uint8_t>& zip, const std::string& filename,
                                 const std::string& policy = "default");
// The first wheel's findings in a run of `wheels` (bytes, file name), judged whole (judge_wheel).
// A run judges them otherwise: each wheel's own rules first, then the install-set rules over facts
// cut down for them (keep_for_install_sets: symbol tables slimmed, Mach-O exports hashed) and,
// with several wheels, parked in a spill file and read back as the set reaches them (facts/spill.h,
// through the install-set index); the test fails when either verdict is not the same, finding for
// finding.
std::vector<Finding> judge_first_of_run(const std::vector<std::pair<std::vector<uint8_t>, std::string>>& wheels,
                                        const Policy& policy);
std::vector<std::string> rule_ids(const std::vector<Finding>& fs);
bool has_rule(const std::vector<Finding>& fs, const std::string& id);
std::string dump(const std::vector<Finding>& fs);
// A shared object dir/name from C source (gcc -O1 -shared -fPIC), linked with `flags` (-L is
// dir); its bytes. A failed compile is the test's failure.
std::string gcc_shared_object(const TempDir& dir, const std::string& name, const std::string& src,
                              const std::string& flags = "");
// A C++ library (g++) from `src` with two symbol versions, V_1 for every name and V_2 for `f`: the
// source's `.symver` lines make f@V_1 a hidden definition beside f@@V_2.
std::vector<uint8_t> gxx_versioned_library(const TempDir& dir, const std::string& src, const std::string& flags = "");
// What a symbol table answers for `name`: each definition's version ("V_2", " hidden" after a
// non-default one), sorted.
std::vector<std::string> definitions_of(const DynamicSymbols& d, std::string_view name);
// Whether dump(fs) holds `text` (a finding's "WC511 [error] entry: message", or part of one).
bool says(const std::vector<Finding>& fs, const std::string& text);

// A server process on 127.0.0.1 at a free port: every "{port}" in argv is replaced by it. Waits
// until the port accepts connections; killed (and reaped) at destruction. up() is false when it
// did not start (the tests skip with the reason then).
class ChildServer {
 public:
  explicit ChildServer(std::vector<std::string> argv, const std::string& cwd = "");
  ~ChildServer();
  ChildServer(const ChildServer&) = delete;
  ChildServer& operator=(const ChildServer&) = delete;
  bool up() const { return pid_ > 0; }
  int port() const { return port_; }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + "/" + path; }

 private:
  int pid_ = -1, port_ = 0;
};

// A static file server over its working folder (ChildServer's cwd) that honours Range (python3's
// http.server ignores it), and two paths that misbehave on purpose (tests/tools/range_server.py):
// argv for ChildServer.
std::vector<std::string> range_server_argv();

// Real Sigstore data, downloaded once into ~/.cache/wheelcheck-tests/sigstore by
// tests/tools/sigstore_assets.py: `dir` holds pypi-attestations' test assets, `roots` Sigstore's
// trust roots. `skip` says why they cannot be had: offline, or (prefixed "FAIL ") anything else.
struct SigstoreAssets {
  std::string dir, roots;
  std::string skip;
};
const SigstoreAssets& sigstore_assets();

// A python3 that can import `packaging`, or "" (the differential test skips then).
std::string python_with_packaging();

// The real wheels of tests/real_wheels.json are downloaded at test time into this folder
// (~/.cache/wheelcheck-tests/real, made here), never committed.
std::string real_wheel_cache();
// Fetches the manifest's files named in `names` (every small one when empty) into
// real_wheel_cache() with tools/fetch_wheels.py, each checked against its pinned sha256, under the
// cache's lock. "" when they are all there; else why, with *offline set when PyPI cannot be reached
// (the caller skips then; any other reason is a failure).
std::string fetch_real_wheels(const std::vector<std::string>& names, bool* offline);

}  // namespace wc::testing
