#include "smoke/smoke_rules.h"

#include <vector>

namespace wc::smoke {

std::span<const RuleInfo> smoke_rules() {
  using S = Severity;
  static const std::vector<RuleInfo> rules = {
      {"WS001", S::error, "no usable GPU or NVIDIA driver where one was required (--require-gpu)", "wheelsmoke"},
      {"WS101", S::error, "no SASS that runs on the target and no PTX the target can JIT", "wheelsmoke"},
      {"WS102", S::error, "the only usable PTX has an ISA newer than the driver can JIT (error 222 at load)",
       "wheelsmoke"},
      {"WS103", S::error, "the CUDA runtime the binary links needs a newer driver than the target's", "wheelsmoke"},
      {"WS104", S::error, "a fatbin container failed to load through the driver on the device (209/222/218 ...)",
       "wheelsmoke"},
      {"WS105", S::warning, "GPU code runs on the target only through PTX JIT (slow first load, no tuned SASS)",
       "wheelsmoke"},
      {"WS201", S::error, "a suite case's result differs from its reference", "wheelsmoke"},
      {"WS202", S::error, "a suite case could not run (error raised)", "wheelsmoke"},
      {"WS203", S::error,
       "the artifact's probe failed: no torch under the interpreter, or it died, hung or broke the protocol",
       "wheelsmoke"},
      {"WS301", S::error,
       "an import (or opening a native library no import loads) fails: the exact error, the signal of a crash, or a "
       "hang",
       "wheelsmoke"},
      {"WS302", S::error,
       "a library loaded from outside the install set and the system's libraries (LD_LIBRARY_PATH, /usr/local/cuda, "
       "another venv), or a torch artifact's CUDA library from the system",
       "wheelsmoke"},
      {"WS303", S::error, "two copies of one runtime (libgomp, libgfortran, libcudart ...) loaded in one process",
       "wheelsmoke"},
      {"WS304", S::error,
       "what loaded differs from wheelcheck's prediction: another file for a need, a binary it fails that loaded, one "
       "it passes that failed",
       "wheelsmoke"},
      {"WS305", S::error, "a wheel is not what --python's environment has installed (absent, another version or build)",
       "wheelsmoke"},
      {"WS306", S::warning,
       "an import misbehaves around its work: megabytes of output, a child process left running, threads that keep "
       "the interpreter from exiting",
       "wheelsmoke"},
  };
  return rules;
}

}  // namespace wc::smoke
