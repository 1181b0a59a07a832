#include "smoke/import_job.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "smoke/session.h"
#include "util/json_text.h"
#include "util/strings.h"

namespace wc::smoke {

namespace {

constexpr size_t kTail = 64u << 10;
constexpr size_t kMaxDepth = 32;

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

}  // namespace

const nlohmann::json& JobOutcome::final_line() const {
  static const nlohmann::json empty = nlohmann::json::object();
  return done && !lines.empty() ? lines.back() : empty;
}

std::string JobOutcome::last_words(size_t max_chars) const {
  auto parts = split(output_tail, '\n');
  std::vector<std::string> keep;
  for (auto it = parts.rbegin(); it != parts.rend() && keep.size() < 3; ++it)
    if (!trim(*it).empty()) keep.insert(keep.begin(), std::string(trim(*it)));
  return keep.empty() ? "" : "its last words: " + clip_for_display(join(keep, " | "), max_chars);
}

std::string JobOutcome::stuck_at() const {
  auto at = output_tail.rfind("(most recent call first):");
  if (at == std::string::npos) return "";
  const std::string block = output_tail.substr(at);
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
  std::string line = request.dump() + "\n";
  for (size_t done = 0; done < line.size();) {  // one small line: the pipe holds it
    ssize_t w = write(c.in, line.data() + done, line.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;  // it died at once: its status says how
    done += size_t(w);
  }
  close(c.in), c.in = -1;
  std::string answers, output;
  uint64_t answer_total = 0;
  bool out_open = true, err_open = true;
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
    pollfd p[2] = {{out_open ? c.out : -1, POLLIN, 0}, {err_open ? c.err : -1, POLLIN, 0}};
    int r = poll(p, 2, 50);
    if (r < 0 && errno != EINTR) break;
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
  if (c.pid <= 0 && c.pgid > 0 && kill(-c.pgid, 0) == 0) o.children_left = true;
  kill_session(c);
  // Whatever the output still holds (its writers are gone now; the descriptor is non-blocking).
  for (ssize_t n = 1; err_open && n > 0;) {
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
