#include "smoke/import/import_job.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "smoke/artifact/session.h"
#include "util/json_text.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc::smoke {

namespace {

constexpr size_t kTail = 64u << 10;
constexpr size_t kMaxDepth = 32;
constexpr const char* kGreeting = "{\"probe\": \"wheelsmoke import\"}";  // the probe's first line

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// One read of what `fd` holds (poll said it is readable, or it is non-blocking): the bytes read,
// 0 at end of file, -1 when nothing is there now.
ssize_t read_some(int fd, std::string& into) {
  char buf[65536];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN ? -1 : 0;
  into.append(buf, size_t(n));
  return n;
}

// Whether a process of the group lives on (a zombie waiting for its reaper does not count).
bool group_alive(int pgid) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    std::string name = e.path().filename().string();
    if (name.empty() || !is_digit(name[0])) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // pid (comm) state ppid pgrp ...: comm can hold anything, so read after its last ')'.
    auto close_paren = stat.rfind(')');
    if (close_paren == std::string::npos) continue;
    auto fields = split(std::string_view(stat).substr(close_paren + 1), ' ');
    std::vector<std::string_view> f;
    for (auto x : fields)
      if (!x.empty()) f.push_back(x);
    if (f.size() >= 3 && f[0] != "Z" && f[0] != "X" && f[2] == std::to_string(pgid)) return true;
  }
  return ec ? kill(-pgid, 0) == 0 : false;
}

}  // namespace

const nlohmann::json& JobOutcome::final_line() const {
  static const nlohmann::json empty = nlohmann::json::object();
  return done && !lines.empty() ? lines.back() : empty;
}

std::string JobOutcome::last_words(size_t max_chars) const {
  std::string words = last_lines(output_tail, 3, max_chars);
  return words.empty() ? "" : "its last words: " + words;
}

std::string JobOutcome::stuck_at() const {
  // The last dump; in it the thread that crashed ("Current thread"), else the last one listed (a
  // timed dump lists every thread, the main thread last).
  size_t dump = 0;
  for (const char* header : {"Fatal Python error", "Timeout ("})
    if (auto x = output_tail.rfind(header); x != std::string::npos) dump = std::max(dump, x);
  auto at = output_tail.find("Current thread", dump);
  if (at == std::string::npos) at = output_tail.rfind("(most recent call first):");
  if (at == std::string::npos) return "";
  auto end = output_tail.find("\n\n", at);  // the block ends at a blank line
  const std::string block = output_tail.substr(at, end == std::string::npos ? std::string::npos : end - at);
  for (auto line : split(block, '\n')) {
    auto t = trim(line);
    if (!t.starts_with("File ") || t.find("<frozen importlib") != std::string_view::npos ||
        t.find("import_probe.py") != std::string_view::npos)
      continue;
    return clip_for_display(std::string(t), 300);
  }
  return "";
}

JobOutcome run_import_job(const std::string& python, const std::string& script, const nlohmann::json& request,
                          const JobLimits& limits, const std::vector<std::string>* env) {
  JobOutcome o;
  auto t0 = Clock::now();
  SessionChild c;
  try {
    c = spawn_session({python, "-u", script}, env);
  } catch (const std::exception& e) {
    o.protocol_error = e.what();
    return o;
  }
  // The request goes in as the child reads it (a batch of library paths can outgrow the pipe).
  std::string request_text = request.dump() + "\n";
  size_t request_sent = 0;
  fcntl(c.in, F_SETFL, O_NONBLOCK);
  auto feed = [&] {
    while (c.in >= 0 && request_sent < request_text.size()) {
      ssize_t w = write(c.in, request_text.data() + request_sent, request_text.size() - request_sent);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EAGAIN) return;
      if (w <= 0) break;  // it died, or closed its stdin: its status says how
      request_sent += size_t(w);
    }
    if (c.in >= 0) close(c.in), c.in = -1;
  };
  feed();
  std::string answers, output;
  uint64_t answer_total = 0;
  bool out_open = true, err_open = true;
  bool greeted = false;  // the probe's first line came: stdout is the protocol's alone from then on
  auto reap = [&](int flags) {
    int status = 0;
    if (c.pid > 0 && waitpid(c.pid, &status, flags) == c.pid) {
      c.pid = -1;
      if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
      if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
    }
    return c.pid <= 0;
  };
  auto take_lines = [&] {
    for (size_t nl; !o.done && (nl = answers.find('\n')) != std::string::npos;) {
      std::string one = answers.substr(0, nl);
      answers.erase(0, nl + 1);
      if (!greeted) {  // a .pth file or sitecustomize printing at startup, before the probe ran
        greeted = one == kGreeting;
        if (!greeted) output += one + "\n", o.output_bytes += one.size() + 1;
        continue;
      }
      JsonError why;
      auto j = parse_json(one, &why, kMaxDepth);
      if (!j || !j->is_object()) {
        o.protocol_error = "printed something that is not the protocol: '" + clip_for_display(one, 120) + "'";
        return;
      }
      o.done = j->contains("done");
      o.lines.push_back(std::move(*j));
    }
  };
  auto keep_tail = [&] {
    if (output.size() > 2 * kTail) output.erase(0, output.size() - kTail);
  };
  std::optional<Clock::time_point> exit_deadline;
  for (;;) {
    double left = limits.seconds - since(t0);
    if (!o.done && o.protocol_error.empty() && left <= 0) {
      o.timed_out = true;
      break;
    }
    if (exit_deadline && Clock::now() >= *exit_deadline) {
      o.exit_hung = c.pid > 0;
      break;
    }
    pollfd p[3] = {{out_open ? c.out : -1, POLLIN, 0}, {err_open ? c.err : -1, POLLIN, 0}, {c.in, POLLOUT, 0}};
    int r = poll(p, 3, 50);
    if (r < 0 && errno != EINTR) break;
    if (p[2].revents) feed();
    if (out_open && (p[0].revents & (POLLIN | POLLHUP))) {
      size_t before = answers.size();
      out_open = read_some(c.out, answers) != 0;
      answer_total += answers.size() - before;
      if (!o.done) take_lines();
      if (o.done) answers.clear();
      if (answer_total > limits.answer_bytes && !o.done && o.protocol_error.empty())
        o.protocol_error = "sent over " + std::to_string(limits.answer_bytes >> 20) + " MiB of answers";
    }
    if (err_open && (p[1].revents & (POLLIN | POLLHUP))) {
      size_t before = output.size();
      err_open = read_some(c.err, output) != 0;
      o.output_bytes += output.size() - before;
      keep_tail();
    }
    if (!o.protocol_error.empty()) break;
    if (reap(WNOHANG)) {
      // The leader is gone; what it wrote is in the pipes unless a child holds them open.
      if (!o.done) {
        for (int i = 0; i < 20 && out_open; ++i) {
          pollfd q{c.out, POLLIN, 0};
          if (poll(&q, 1, 10) <= 0) break;
          out_open = read_some(c.out, answers) != 0;
          take_lines();
        }
      }
      break;
    }
    if (o.done && !exit_deadline)
      exit_deadline =
          Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.exit_grace));
  }
  if (c.pid <= 0 && c.pgid > 0) o.children_left = group_alive(c.pgid);
  if (c.in >= 0) close(c.in), c.in = -1;
  kill_session(c);
  // Whatever the output still holds (its writers are gone now; the descriptor is non-blocking). A
  // process that left the session could write on: a bounded number of reads.
  for (ssize_t n = 1, reads = 0; err_open && n > 0 && reads < 64; ++reads) {
    size_t before = output.size();
    n = read_some(c.err, output);
    o.output_bytes += output.size() - before;
    keep_tail();
  }
  o.output_tail = output.size() > kTail ? output.substr(output.size() - kTail) : output;
  close(c.out), close(c.err);
  o.seconds = since(t0);
  return o;
}

}  // namespace wc::smoke
