// Kernel suites: cases run on backends (cpu reference, cuda), compared bit-exactly or within a
// stated tolerance, timed, reported per case. Adding a suite = one class + one line in
// all_suites(); adding a backend = a new name the suites understand.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wc::smoke {

struct CaseOutcome {
  std::string suite, name, backend;
  bool passed = false, skipped = false, error = false;
  std::string message;  // what differed, or why skipped
  double ms = 0;
};

class Probe;

struct RunContext {
  bool want_cpu = true, want_cuda = true;  // from --backend
  // Artifact mode (--python): the suites call this probe's PyTorch instead of their own kernels.
  Probe* probe = nullptr;
  bool compiled = true;  // also torch.compile (Inductor) the pad patterns
};

class Suite {
 public:
  virtual ~Suite() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Extra cases from --cases FILE.json; throws std::runtime_error naming the JSON pointer.
  virtual void add_cases(const nlohmann::json& doc) = 0;
  virtual std::vector<CaseOutcome> run(const RunContext& ctx) = 0;
};

std::vector<std::unique_ptr<Suite>> all_suites();

// The cases of a --cases document ({"cases": [...]} or a bare array): each must be an object whose
// keys are all in `keys`; calls fn(case, its JSON pointer). Throws std::runtime_error naming the
// pointer (and, for an unknown key, the key and the ones allowed).
void for_each_case(const nlohmann::json& doc, const std::vector<std::string>& keys,
                   const std::function<void(const nlohmann::json&, const std::string&)>& fn);

// Runs `fn`, timing it; an exception becomes an error outcome.
CaseOutcome run_case(const std::string& suite, const std::string& name, const std::string& backend,
                     const std::function<std::string()>& fn);
CaseOutcome skipped_case(const std::string& suite, const std::string& name, const std::string& backend,
                         const std::string& why);

std::unique_ptr<Suite> make_rng_graph_suite();
// rng_graph through the artifact's CUDA graphs (src/smoke/artifact/rng_artifact.cc); skipped, with the
// reason, without a CUDA device or under --backend cpu.
std::vector<CaseOutcome> rng_graph_artifact_cases(Probe& probe, bool want_cuda, bool has_stream_cases);
std::unique_ptr<Suite> make_pad_concat_suite();
std::unique_ptr<Suite> make_dtensor_view_suite();

}  // namespace wc::smoke
