// wheelsmoke's probe bounded as the checker is (issue 28): answers with fields of the wrong type or
// nested a million deep are WS203 naming what is wrong, stderr is kept as a tail however much the
// probe writes, and a probe's children die with it. The probe here is a hostile stand-in
// interpreter (testing::fake_interpreter) that misbehaves one way per mode.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "support/test_support.h"

namespace wc {
namespace {

using testing::run_command;
using testing::shell_quote;

const char* kHostileProbe = R"PY(
import json, os, sys, time
mode = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
line = sys.stdin.readline()
req = json.loads(line)
hello = {"id": req["id"], "ok": True, "python": sys.version.split()[0], "torch": "2.15.0", "cuda": None,
         "device": "cpu"}
if mode == "types":
    hello["python"] = 7
elif mode == "oktype":
    hello["ok"] = "yes"
elif mode == "deep":
    sys.stdout.write('{"id": %d, "ok": true, "x": ' % req["id"] + "[" * 1000000 + "]" * 1000000 + "}\n")
    sys.stdout.flush()
    time.sleep(30)
    sys.exit(0)
elif mode == "flood":
    chunk = "\n" * (1 << 20)
    for _ in range(200):
        sys.stderr.write(chunk)
    sys.stderr.write("the last words of the flood\n")
    sys.stderr.flush()
    sys.exit(3)
elif mode == "fork":
    pid = os.fork()
    if pid == 0:  # the child keeps stdout open and outlives its parent
        with open(os.path.join(here, "child.pid"), "w") as f:
            f.write(str(os.getpid()))
        time.sleep(600)
        os._exit(0)
    time.sleep(0.5)
    sys.exit(5)
sys.stdout.write(json.dumps(hello) + "\n")
sys.stdout.flush()
time.sleep(30)
)PY";

testing::RunResult run_probe(const testing::TempDir& dir, const std::string& mode) {
  std::string py = testing::fake_interpreter(dir, kHostileProbe, mode);
  return run_command("timeout 120 " + shell_quote(WS_BINARY) + " run --suite pad_concat --case-timeout 20 --python " +
                     shell_quote(py));
}

TEST(ProbeBounds, AFieldOfTheWrongTypeIsWS203NamingIt) {
  testing::TempDir dir;
  auto r = run_probe(dir, "types");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("WS203"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("answered \"python\" as a number (7) where a string belongs"), std::string::npos) << r.out;
  testing::TempDir dir2;
  auto ok = run_probe(dir2, "oktype");
  EXPECT_EQ(ok.exit_code, 1) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("answered \"ok\" as a string (\"yes\") where a boolean belongs"), std::string::npos) << ok.out;
}

TEST(ProbeBounds, AnAnswerNestedAMillionDeepIsRefused) {
  testing::TempDir dir;
  auto r = run_probe(dir, "deep");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("answered JSON nested more than 64 levels deep"), std::string::npos) << r.out;
}

// 200 MiB of newlines on stderr, then death: the report quotes the tail.
TEST(ProbeBounds, AFloodOnStderrKeepsOnlyItsTail) {
  testing::TempDir dir;
  auto r = run_probe(dir, "flood");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("exited with status 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the last words of the flood"), std::string::npos) << r.out;
}

// The probe forks a child that keeps the answer pipe open and exits: wheelsmoke notices the exit
// at once (not at the case timeout) and the child dies with the probe's process group.
TEST(ProbeBounds, AForkedChildDiesWithTheProbe) {
  testing::TempDir dir;
  auto r = run_probe(dir, "fork");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("exited with status 5 before answering"), std::string::npos) << r.out;
  std::ifstream in(dir.file("child.pid"));
  int pid = 0;
  in >> pid;
  ASSERT_GT(pid, 0) << "the child never started";
  // Dead: gone, or a zombie waiting for whoever inherited it.
  auto running = [&] {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    auto close = text.rfind(')');
    return stat && close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
  };
  bool alive = true;
  for (int i = 0; i < 50 && alive; ++i) {
    alive = running();
    if (alive) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_FALSE(alive) << "the probe's child " << pid << " outlived wheelsmoke";
  if (alive) ::kill(pid, SIGKILL);
}

}  // namespace
}  // namespace wc
