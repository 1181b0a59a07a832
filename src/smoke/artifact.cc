#include "smoke/artifact.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "util/digest.h"
#include "util/strings.h"

extern char** environ;

namespace wc::smoke {

namespace fs = std::filesystem;

Probe::Probe(std::string python, double case_seconds) : python_(std::move(python)), seconds_(case_seconds) { start(); }

Probe::~Probe() {
  if (in_ >= 0) close(in_);
  if (out_ >= 0) close(out_);
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

void Probe::start() {
  char tmpl[] = "/tmp/wheelsmoke-probe-XXXXXX";
  if (!mkdtemp(tmpl)) throw ProbeError("cannot create a folder for the probe: " + std::string(std::strerror(errno)));
  dir_ = tmpl;
  std::string script = dir_ + "/wheelsmoke_probe.py";
  std::ofstream(script) << probe_source();
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) throw ProbeError("cannot create pipes for the probe");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&fa, from_child[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, (dir_ + "/stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addclose(&fa, to_child[1]);
  posix_spawn_file_actions_addclose(&fa, from_child[0]);
  std::vector<std::string> args = {python_, "-u", script};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int rc = posix_spawnp(&pid_, python_.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(to_child[0]);
  close(from_child[1]);
  in_ = to_child[1];
  out_ = from_child[0];
  fcntl(in_, F_SETFD, FD_CLOEXEC);
  fcntl(out_, F_SETFD, FD_CLOEXEC);
  signal(SIGPIPE, SIG_IGN);  // a probe that died is an error answer, not the end of wheelsmoke
  if (rc != 0) {
    pid_ = -1;
    fail("cannot start " + python_ + ": " + std::strerror(rc));
  }
}

std::string Probe::stderr_tail() const {
  std::ifstream in(dir_ + "/stderr.txt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto lines = split(text, '\n');
  std::vector<std::string> keep;
  for (auto it = lines.rbegin(); it != lines.rend() && keep.size() < 3; ++it)
    if (!trim(*it).empty()) keep.insert(keep.begin(), std::string(trim(*it)));
  return keep.empty() ? "" : " (its last words: " + clip_for_display(join(keep, " | "), 400) + ")";
}

void Probe::fail(const std::string& why) {
  if (dead_.empty()) dead_ = "the probe under " + python_ + " " + why;
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  throw ProbeError(dead_);
}

nlohmann::json Probe::ask(nlohmann::json request) {
  if (!dead_.empty()) throw ProbeError(dead_);
  uint64_t id = next_id_++;
  request["id"] = id;
  std::string line = request.dump() + "\n";
  for (size_t done = 0; done < line.size();) {
    ssize_t w = write(in_, line.data() + done, line.size() - done);
    if (w <= 0) fail("stopped reading its requests (it exited?)" + stderr_tail());
    done += size_t(w);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds_);
  size_t scanned = 0;  // bytes of buffer_ known to hold no line end (an answer can be 100 MB)
  for (;;) {
    auto nl = buffer_.find('\n', scanned);
    scanned = buffer_.size();
    if (nl != std::string::npos) {
      std::string answer = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      nlohmann::json j = nlohmann::json::parse(answer, nullptr, false);
      if (j.is_discarded() || !j.is_object() || !j.contains("ok"))
        fail("printed something that is not the protocol: '" + clip_for_display(answer, 120) + "'");
      if (j.value("id", uint64_t(0)) != id)
        fail("answered request " + std::to_string(j.value("id", uint64_t(0))) + " when asked " + std::to_string(id));
      return j;
    }
    if (buffer_.size() > (256u << 20)) fail("sent over 256 MiB without a line end");
    auto left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0)
      fail("gave no answer within " + std::to_string(int(seconds_)) + " s (killed; --case-timeout sets the bound)" +
           stderr_tail());
    pollfd p{out_, POLLIN, 0};
    int r = poll(&p, 1, int(std::min(left, 1.0) * 1000) + 1);
    if (r < 0 && errno != EINTR) fail("could not be read: " + std::string(std::strerror(errno)));
    if (r <= 0) continue;
    char buf[65536];
    ssize_t n = read(out_, buf, sizeof buf);
    if (n <= 0) {
      int status = 0;
      std::string how = "exited";
      if (pid_ > 0 && waitpid(pid_, &status, 0) == pid_) {
        how = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                  : "exited with status " + std::to_string(WEXITSTATUS(status));
        pid_ = -1;
      }
      fail(how + " before answering" + stderr_tail());
    }
    buffer_.append(buf, size_t(n));
  }
}

const nlohmann::json& Probe::artifact() {
  if (!hello_.is_null()) return hello_;
  nlohmann::json h = ask({{"op", "hello"}});
  if (!h.value("ok", false)) {
    dead_ = "the interpreter " + python_ + " has no usable torch: " + h.value("error_type", std::string("?")) + ": " +
            h.value("message", std::string(""));
    throw ProbeError(dead_);
  }
  hello_ = h;
  return hello_;
}

std::optional<AnswerTensor> answer_tensor(const nlohmann::json& t, const std::string& dtype, size_t elem_size,
                                          std::string* why) {
  if (!t.is_object() || !t.contains("data") || !t.contains("shape") || !t["data"].is_string() || !t["shape"].is_array())
    return *why = "answer without a tensor", std::nullopt;
  if (t.value("dtype", std::string()) != dtype)  // wheelsmoke's dtype names are torch's
    return *why = "dtype " + t.value("dtype", std::string("?")) + ", expected " + dtype, std::nullopt;
  AnswerTensor out;
  uint64_t bytes = elem_size;  // shape x elem_size, checked: a hostile shape cannot overflow it
  for (const auto& d : t["shape"]) {
    if (!d.is_number_unsigned())
      return *why = "a shape of " + clip_for_display(t["shape"].dump(), 80) + ", not sizes", std::nullopt;
    uint64_t n = d.get<uint64_t>();
    if (n > (uint64_t(1) << 40) || (n && bytes > (uint64_t(1) << 40) / n))
      return *why = "a shape of " + clip_for_display(t["shape"].dump(), 80) + ", larger than any answer", std::nullopt;
    bytes *= n;
    out.shape.push_back(static_cast<int64_t>(n));
  }
  if (!base64_decode(t["data"].get<std::string>(), &out.bytes))
    return *why = "tensor bytes are not base64", std::nullopt;
  if (out.bytes.size() != bytes) {
    std::string dims;
    for (int64_t n : out.shape) dims += (dims.empty() ? "" : ",") + std::to_string(n);
    return *why = std::to_string(out.bytes.size()) + " bytes for shape [" + dims + "]", std::nullopt;
  }
  return out;
}

std::string artifact_cuda_unavailable(Probe& probe, bool want_cuda) {
  if (!want_cuda) return "--backend cpu";
  const nlohmann::json& hello = probe.artifact();
  if (hello.contains("cuda_device") && hello["cuda_device"].is_object()) return "";
  const nlohmann::json& v = hello.contains("cuda") ? hello["cuda"] : nlohmann::json();
  return "the artifact's torch sees no CUDA device (torch.version.cuda " +
         (v.is_string() ? v.get<std::string>() : std::string("None: a CPU build")) + ")";
}

int artifact_gpu_count(Probe& probe) {
  const nlohmann::json& hello = probe.artifact();
  if (!hello.contains("cuda_device") || !hello["cuda_device"].is_object()) return 0;
  const nlohmann::json& n = hello["cuda_device"].value("count", nlohmann::json());
  return n.is_number_unsigned() ? int(std::min<uint64_t>(n.get<uint64_t>(), 1024)) : 0;
}

}  // namespace wc::smoke
