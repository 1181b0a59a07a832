// The RNG graph suite's checks. Each returns "" when it holds, else what differed. CPU-only
// checks test the Philox implementation itself; backend checks test the generator's state machine
// on a backend (CPU closures or real CUDA graphs) against the CPU reference stream.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rng_graph/backend.h"

namespace wc::rng {

std::vector<uint32_t> reference_stream(uint64_t seed, uint64_t subsequence, uint64_t offset, size_t count);

// Philox itself (CPU)
std::string check_known_answers();
std::string check_offset_law();
std::string check_subsequence_and_carries();
std::string check_uniform_mapping();
std::string check_increment_rounding();

// Generator state machine on a backend. `buggy` builds the generator with the old shared
// intragraph counter (only the self-test uses it, to prove the checks can fail).
std::string check_replay_equals_eager(Backend& be, bool buggy = false);
std::string check_consecutive_replays_differ(Backend& be);
std::string check_reseed_identical_replays(Backend& be);
std::string check_graph_without_rng(Backend& be);
std::string check_seed_change_during_capture(Backend& be);
std::string check_concurrent_captures(Backend& be, bool buggy = false);
std::string check_state_machine(Backend& be);
std::string check_size_sweep(Backend& be);

// Compares words and describes the first few mismatches (at most 10 scanned lines reported).
std::string compare_words(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want, const std::string& what);
std::string hex_words(const std::vector<uint32_t>& w);

}  // namespace wc::rng
