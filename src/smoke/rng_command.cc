// wheelsmoke rng: the Philox4x32-10 stream (curand-compatible), for debugging a mismatch.
#include "smoke/commands.h"

#include <cstdio>

#include "philox.h"

namespace wc::smoke {

int run_rng(uint64_t seed, uint64_t subsequence, uint64_t offset, uint64_t count, bool uniform) {
  auto s = philox::Stream::init(seed, subsequence, offset);
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t w = s.next();
    if (uniform)
      std::printf("%08x %.9g\n", w, double(philox::uniform(w)));
    else
      std::printf("%08x%c", w, (i % 8 == 7 || i + 1 == count) ? '\n' : ' ');
  }
  return kPass;
}

}  // namespace wc::smoke
