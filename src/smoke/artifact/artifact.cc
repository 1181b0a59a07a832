#include "smoke/artifact/artifact.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "smoke/artifact/session.h"
#include "util/digest.h"
#include "util/json_text.h"
#include "util/strings.h"

namespace wc::smoke {

namespace fs = std::filesystem;

Probe::Probe(std::string python, double case_seconds) : python_(std::move(python)), seconds_(case_seconds) { start(); }

namespace {

constexpr size_t kStderrTail = 64u << 10;
constexpr size_t kMaxAnswerDepth = 64;

}  // namespace

Probe::~Probe() {
  if (in_ >= 0) close(in_);
  if (out_ >= 0) close(out_);
  if (err_ >= 0) close(err_);
  kill_group();
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

// The probe and every process it started (its session: forked children, ranks, compilers).
void Probe::kill_group() {
  if (pgid_ > 0) kill(-pgid_, SIGKILL), pgid_ = -1;  // the children too, after the leader was reaped
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

// Whatever stderr holds now, without blocking; only the tail is kept.
void Probe::drain_stderr() {
  if (err_ < 0) return;
  char buf[65536];
  for (;;) {
    ssize_t n = read(err_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) close(err_), err_ = -1;  // every writer is gone
      return;
    }
    err_tail_.append(buf, size_t(n));
    if (err_tail_.size() > 2 * kStderrTail) err_tail_.erase(0, err_tail_.size() - kStderrTail);
  }
}

void Probe::start() {
  char tmpl[] = "/tmp/wheelsmoke-probe-XXXXXX";
  if (!mkdtemp(tmpl)) throw ProbeError("cannot create a folder for the probe: " + std::string(std::strerror(errno)));
  dir_ = tmpl;
  std::string script = dir_ + "/wheelsmoke_probe.py";
  std::ofstream(script) << probe_source();
  try {
    SessionChild c = spawn_session({python_, "-u", script});
    pid_ = c.pid, pgid_ = c.pgid, in_ = c.in, out_ = c.out, err_ = c.err;
  } catch (const std::runtime_error& e) {
    fail(e.what());
  }
}

std::string Probe::stderr_tail() {
  drain_stderr();
  std::string text = err_tail_.size() > kStderrTail ? err_tail_.substr(err_tail_.size() - kStderrTail) : err_tail_;
  std::string words = last_lines(text);
  return words.empty() ? "" : " (its last words: " + words + ")";
}

void Probe::fail(const std::string& why) {
  if (dead_.empty()) dead_ = "the probe under " + python_ + " " + why;
  kill_group();
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
      // Depth-limited (nlohmann copies and destroys values recursively: an answer nested a million
      // levels deep overflowed the stack), then every field wheelsmoke reads checked for its type.
      JsonError why;
      std::optional<nlohmann::json> parsed = parse_json(answer, &why, kMaxAnswerDepth);
      if (!parsed && why.message.rfind("nested more than", 0) == 0)
        fail("answered JSON " + why.message + " (byte " + std::to_string(why.byte) + ")");
      if (!parsed || !parsed->is_object() || !parsed->contains("ok"))
        fail("printed something that is not the protocol: '" + clip_for_display(answer, 120) + "'");
      nlohmann::json j = std::move(*parsed);
      if (std::string wrong = answer_field_types_wrong(j); !wrong.empty()) fail("answered " + wrong);
      if (j["id"].get<uint64_t>() != id)
        fail("answered request " + std::to_string(j["id"].get<uint64_t>()) + " when asked " + std::to_string(id));
      return j;
    }
    if (buffer_.size() > (256u << 20)) fail("sent over 256 MiB without a line end");
    auto left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0)
      fail("gave no answer within " + std::to_string(int(seconds_)) + " s (killed; --case-timeout sets the bound)" +
           stderr_tail());
    // stderr is drained as it comes (a full pipe would stall the probe), keeping only its tail.
    pollfd p[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
    int r = poll(p, err_ >= 0 ? 2 : 1, int(std::min(left, 1.0) * 1000) + 1);
    if (r < 0 && errno != EINTR) fail("could not be read: " + std::string(std::strerror(errno)));
    if (err_ >= 0 && (p[1].revents & (POLLIN | POLLHUP))) drain_stderr();
    if (r <= 0 || !(p[0].revents & (POLLIN | POLLHUP))) {
      // The probe itself may be gone while a child it forked keeps the pipe open.
      int status = 0;
      if (pid_ > 0 && waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        std::string how = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                              : "exited with status " + std::to_string(WEXITSTATUS(status));
        fail(how + " before answering (a process it started kept its output open; killed)" + stderr_tail());
      }
      continue;
    }
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

std::string answer_field_types_wrong(const nlohmann::json& answer) {
  struct Field {
    const char* name;
    const char* what;  // for the message
    bool (*accepts)(const nlohmann::json&);
  };
  static const Field kFields[] = {
      {"ok", "a boolean", [](const nlohmann::json& v) { return v.is_boolean(); }},
      {"id", "a request number", [](const nlohmann::json& v) { return v.is_number_unsigned(); }},
      {"error_type", "a string", [](const nlohmann::json& v) { return v.is_string(); }},
      {"message", "a string", [](const nlohmann::json& v) { return v.is_string(); }},
      {"python", "a string", [](const nlohmann::json& v) { return v.is_string(); }},
      {"torch", "a string", [](const nlohmann::json& v) { return v.is_string(); }},
      {"cuda", "a string or null", [](const nlohmann::json& v) { return v.is_string() || v.is_null(); }},
      {"device", "a string", [](const nlohmann::json& v) { return v.is_string(); }},
      {"cuda_device", "an object or null", [](const nlohmann::json& v) { return v.is_object() || v.is_null(); }},
      {"producer", "a tensor",
       [](const nlohmann::json& v) { return v.is_object(); }},  // the compiled producer's output
      {"backend", "a string", [](const nlohmann::json& v) { return v.is_string(); }},
      {"error", "a string or null", [](const nlohmann::json& v) { return v.is_string() || v.is_null(); }},
      {"data_valid", "a boolean", [](const nlohmann::json& v) { return v.is_boolean(); }},
      {"eager_ms", "a number", [](const nlohmann::json& v) { return v.is_number(); }},
      {"compiled_ms", "a number", [](const nlohmann::json& v) { return v.is_number(); }},
      {"bytes_moved", "a number", [](const nlohmann::json& v) { return v.is_number(); }},
      // null where the op raised (dtensor: "error" says why)
      {"out", "a list, a tensor or null",
       [](const nlohmann::json& v) { return v.is_array() || v.is_object() || v.is_null(); }},
      {"replays", "a list", [](const nlohmann::json& v) { return v.is_array(); }},
      {"steps", "a list", [](const nlohmann::json& v) { return v.is_array(); }},
      {"seeds", "a list", [](const nlohmann::json& v) { return v.is_array(); }},
      {"final_offsets", "a list", [](const nlohmann::json& v) { return v.is_array(); }},
      {"roundtrip", "an object", [](const nlohmann::json& v) { return v.is_object(); }},
  };
  static const char* kTypeNames[] = {"null",     "an object", "a list",   "a string", "a boolean",
                                     "a number", "a number",  "a number", "bytes",    "nothing"};
  if (!answer.is_object()) return "something that is not an object";
  if (!answer.contains("id")) return "without the request's \"id\"";
  for (const Field& f : kFields) {
    auto it = answer.find(f.name);
    if (it == answer.end() || f.accepts(*it)) continue;
    size_t t = static_cast<size_t>(it->type());
    // Shown without serializing it whole (the value may be a 100 MB string or list).
    std::string shown = it->is_string()       ? "\"" + clip_for_display(it->get_ref<const std::string&>(), 40) + "\""
                        : it->is_structured() ? std::to_string(it->size()) + " elements"
                                              : it->dump();
    return "\"" + std::string(f.name) + "\" as " + (t < std::size(kTypeNames) ? kTypeNames[t] : "?") + " (" + shown +
           ") where " + f.what + " belongs";
  }
  return "";
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
