// libFuzzer entry point; WC_FUZZ_TARGET names the function in fuzz_targets.h (one executable each).
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wc::fuzz::WC_FUZZ_TARGET(data, size);
  return 0;
}
