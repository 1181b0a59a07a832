// Artifact mode: the suites run through the PyTorch of the artifact under test. A probe program
// (src/smoke/artifact/wheelsmoke_probe.py, embedded in wheelsmoke and written to a temporary folder)
// runs under the given interpreter and answers line-delimited JSON requests on a pipe; every
// judgement stays here, against wheelsmoke's CPU references.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wc::smoke {

// The probe died, hung, printed something that is not the protocol, or could not start; the
// message names the interpreter.
class ProbeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Probe {
 public:
  // Starts `python probe.py`; `case_seconds` bounds each answer (the probe is killed past it).
  Probe(std::string python, double case_seconds);
  ~Probe();
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  // One request and its answer (an object with "ok"). Throws ProbeError; after one, every later
  // request throws the same (the probe is gone).
  nlohmann::json ask(nlohmann::json request);
  const std::string& python() const { return python_; }
  // The hello answer: torch version, torch.version.cuda, device, interpreter (ProbeError when the
  // interpreter has no usable torch).
  const nlohmann::json& artifact();

 private:
  std::string python_, dir_;
  double seconds_;
  // The probe leads a session of its own: everything it forks is killed with it (a child that
  // kept the pipe open used to outlive wheelsmoke).
  int pid_ = -1, pgid_ = -1, in_ = -1, out_ = -1, err_ = -1;
  std::string buffer_, dead_;
  std::string err_tail_;  // the last kStderrTail bytes of its stderr (a ring: never read whole)
  uint64_t next_id_ = 1;
  nlohmann::json hello_;
  void start();
  void fail(const std::string& why);
  void kill_group();
  void drain_stderr();
  std::string stderr_tail();
};

// Every top-level field of an answer that wheelsmoke reads, with the JSON types it accepts: an
// answer that breaks this table ("python": 7, "ok": "yes") is a ProbeError naming the field (WS203)
// before any suite looks at it. Returns "" or the complaint.
std::string answer_field_types_wrong(const nlohmann::json& answer);

// A tensor in a probe answer ({"dtype", "shape", "data": base64 of its contiguous bytes}), checked:
// the dtype named, a shape of non-negative sizes, and exactly shape x `elem_size` bytes. nullopt,
// with *why ("answer without a tensor", "dtype X, expected Y", ...), otherwise.
struct AnswerTensor {
  std::vector<int64_t> shape;
  std::string bytes;
};
std::optional<AnswerTensor> answer_tensor(const nlohmann::json& t, const std::string& dtype, size_t elem_size,
                                          std::string* why);

// Why the suites cannot run on the artifact's GPU ("--backend cpu", or its torch sees no CUDA
// device, naming torch.version.cuda); "" when they can.
std::string artifact_cuda_unavailable(Probe& probe, bool want_cuda);
// The GPUs the artifact's torch sees (0 without CUDA).
int artifact_gpu_count(Probe& probe);

// The probe's source (what wheelsmoke writes for the interpreter to run).
const char* probe_source();

}  // namespace wc::smoke
