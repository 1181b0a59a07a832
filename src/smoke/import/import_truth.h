// wheelsmoke import: what a real process loaded, held against the environment it ran in and
// against wheelcheck's static prediction for the same wheels (the core library, in process).
//  - Environment: the probe's "env" answer: the interpreter and every installed distribution with
//    the native files its RECORD installed, by real path.
//  - Placement: each loaded shared object is a file some distribution installed, the interpreter's
//    own, the platform's system libraries, or outside the install set (LD_LIBRARY_PATH,
//    /usr/local/cuda, another venv).
//  - Gate: wheelcheck's verdicts (WC503/WC514 errors per binary) and NeedPrediction per need.
//  - observe(): one import's (or library batch's) observation -> WS302, WS303, WS304 findings.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "binary/binary_facts.h"
#include "facts/wheel_facts.h"
#include "policy/policy.h"
#include "rules/loader/resolution.h"
#include "rules/rules.h"

namespace wc::smoke {

struct Environment {
  struct Dist {
    std::string name, canonical, version;
  };
  struct File {
    size_t dist = 0;
    std::string record_path, hash;  // as the installed RECORD has them
  };
  std::string python, executable, prefix, base_prefix, ld_library_path;
  std::vector<Dist> dists;
  std::map<std::string, File> by_real;                                 // real path -> RECORD row
  std::map<std::pair<std::string, std::string>, std::string> real_of;  // (canonical name, RECORD path) -> real path
  // The installed distribution of a project (canonical name), or null.
  const Dist* dist(const std::string& canonical) const;
};
// The probe's env answer; throws std::runtime_error naming the field that is wrong.
Environment read_environment(const nlohmann::json& answer);

enum class Origin { installed, interpreter, system, outside };
struct Placement {
  Origin origin = Origin::outside;
  const Environment::File* file = nullptr;  // Origin::installed
};
Placement place(const Environment& env, const std::string& real);
// "nvidia-cuda-runtime 13.0.96 (nvidia/cu13/lib/libcudart.so.13)", "the system (/usr/lib/...)", ...
std::string describe(const Environment& env, const std::string& real);

// The dynamic facts (soname, needs, version definitions) of a shared object on disk, read by the
// core ELF reader over the ranges it asks for; nullopt when it is not an ELF file that parses.
std::optional<BinaryFacts> read_shared_object(const std::string& path);

// wheelcheck's prediction for a run (the wheels given, and the dependency wheels installed from
// local files), made once.
class Gate {
 public:
  Gate(std::vector<WheelFacts> run, Policy policy);
  const std::vector<WheelFacts>& run() const { return run_; }
  const Policy& policy() const { return policy_; }
  // The run's binary installed at `record_path` by project `canonical`, with its wheel; null when none.
  std::pair<const WheelFacts*, const BinaryFacts*> binary(const std::string& canonical,
                                                          const std::string& record_path) const;
  // The WC503/WC514 error wheelcheck gives the binary ("" when it predicts the binary loads).
  std::string fails(const BinaryFacts* b) const;
  // The WC503/WC514 warning it gives instead (a library nothing of the run loads: a plugin), or "".
  std::string warns(const BinaryFacts* b) const;
  NeedPrediction predict(const WheelFacts& f, const BinaryFacts& b, const std::string& need) const;
  // Whether a project whose import loads CUDA libraries (cuda.import_loaded: torch) is in the run.
  bool torch_artifact() const;
  // Whether `soname` is a CUDA library some nvidia-* project's providers row installs.
  bool cuda_library(const std::string& soname) const;

 private:
  std::vector<WheelFacts> run_;
  Policy policy_;
  std::vector<InstallSet> sets_;  // per wheel of run_
  std::map<std::pair<std::string, std::string>, std::pair<const WheelFacts*, const BinaryFacts*>> binaries_;
  std::map<const BinaryFacts*, std::string> fails_, warns_;
};

// One process's observation: what it loaded before and after, and how it ended.
struct Observation {
  std::string what;                                         // "import torch", "ctypes.CDLL(.../libx.so)"
  std::vector<std::pair<std::string, std::string>> loaded;  // (name as the loader has it, real path)
  std::set<std::string> before;                             // real paths already loaded before the import
  bool failed = false;
  std::string error;                  // the failure as reported (exception type and message)
  std::vector<std::string> culprits;  // real paths of binaries the failure names (the module, the object)
};

// Accumulates the verdicts of every observation of a run: findings once each, and the counts the
// clean note reports.
class Judge {
 public:
  Judge(const Environment& env, const Gate& gate) : env_(env), gate_(gate) {}
  // WS302, WS303 and WS304 for one observation, into `s` (a finding already given is not repeated).
  void observe(const Observation& o, FindingSink& s);
  size_t libraries_checked() const { return checked_.size(); }
  size_t disagreements() const { return disagreements_; }
  // Every CUDA library (a providers row of nvidia-* or cuda-toolkit) seen loaded: soname -> where
  // from, as describe() says it (which copy of libcudart, cuDNN, NCCL the process really used).
  const std::map<std::string, std::set<std::string>>& cuda_loaded() const { return cuda_loaded_; }

 private:
  const Environment& env_;
  const Gate& gate_;
  std::map<std::string, std::optional<BinaryFacts>> read_;  // real path -> its facts (read once)
  std::set<std::string> said_;
  std::set<std::string> checked_;  // run binaries seen loaded (real paths)
  size_t disagreements_ = 0;
  std::map<std::string, std::set<std::string>> cuda_loaded_;
  const BinaryFacts* facts_of(const std::string& real);
  // One finding per fact: `key` names what was found (the library, the need and where it came
  // from), not the import that showed it, so the next import loading the same says nothing new.
  void add(FindingSink& s, const std::string& rule, const std::string& key, const std::string& message,
           const std::string& entry = "", std::optional<Severity> severity = std::nullopt);
};

}  // namespace wc::smoke
