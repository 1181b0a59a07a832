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
  };
  return rules;
}

}  // namespace wc::smoke
