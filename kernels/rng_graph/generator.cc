#include "rng_graph/generator.h"

#include <algorithm>
#include <string>

namespace wc::rng {

Generator::Generator(uint64_t seed, SlotStore& slots, bool shared_intragraph_counter)
    : slots_(slots), seed_(seed), shared_counter_(shared_intragraph_counter) {}

Generator::~Generator() {
  for (auto& [id, st] : states_) {
    slots_.free_slot(st.seed_slot);
    slots_.free_slot(st.offset_slot);
  }
}

uint64_t Generator::seed() const {
  std::lock_guard<std::mutex> l(mu_);
  return seed_;
}

uint64_t Generator::offset() const {
  std::lock_guard<std::mutex> l(mu_);
  return offset_;
}

bool Generator::any_open() const {
  for (const auto& [id, ph] : phases_)
    if (ph == Phase::open) return true;
  return false;
}

Generator::Phase& Generator::phase_of(CaptureId id, const char* what) {
  auto it = phases_.find(id);
  if (it == phases_.end()) throw GeneratorStateError(std::string(what) + ": unknown capture " + std::to_string(id));
  return it->second;
}

std::optional<Generator::Phase> Generator::phase(CaptureId id) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = phases_.find(id);
  if (it == phases_.end()) return std::nullopt;
  return it->second;
}

void Generator::set_seed(uint64_t seed) {
  std::lock_guard<std::mutex> l(mu_);
  if (any_open()) {
    if (seed != seed_)
      throw SeedChangeDuringCapture("cannot change the generator's seed while a graph capture is under way");
    return;  // the same seed during capture is a no-op (the offset must not move under the graph)
  }
  seed_ = seed;
  offset_ = 0;  // manual_seed restarts the stream, as PyTorch's set_current_seed does
}

void Generator::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> l(mu_);
  if (any_open()) throw GeneratorStateError("cannot set the offset while a graph capture is under way");
  if (offset % 4) throw GeneratorStateError("offset must be a multiple of 4 (got " + std::to_string(offset) + ")");
  offset_ = offset;
}

CaptureId Generator::capture_begin() {
  std::lock_guard<std::mutex> l(mu_);
  CaptureId id = next_id_++;
  phases_[id] = Phase::open;
  return id;
}

uint64_t Generator::capture_end(CaptureId id) {
  std::lock_guard<std::mutex> l(mu_);
  Phase& ph = phase_of(id, "capture_end");
  if (ph != Phase::open) throw GeneratorStateError("capture_end: capture " + std::to_string(id) + " already ended");
  ph = Phase::closed;
  auto it = states_.find(id);
  return it == states_.end() ? 0 : it->second.offset_intragraph;
}

Generator::CaptureState& Generator::state_for(CaptureId id) {
  auto it = states_.find(id);
  if (it != states_.end()) return it->second;
  CaptureState st;
  st.seed_slot = slots_.alloc_slot();
  try {
    st.offset_slot = slots_.alloc_slot();
  } catch (...) {
    slots_.free_slot(st.seed_slot);
    throw;
  }
  return states_.emplace(id, st).first->second;
}

PhiloxArgs Generator::philox_args(uint64_t increment, const CaptureId* capture) {
  std::lock_guard<std::mutex> l(mu_);
  if (increment > UINT64_MAX - 3) throw GeneratorStateError("increment " + std::to_string(increment) + " is too large");
  increment = round_increment(increment);
  PhiloxArgs a;
  if (!capture) {
    if (offset_ > UINT64_MAX - increment) throw GeneratorStateError("the generator's offset would overflow 64 bits");
    a.seed = seed_;
    a.offset = offset_;
    offset_ += increment;
    return a;
  }
  if (phase_of(*capture, "philox_args") != Phase::open)
    throw GeneratorStateError("capture " + std::to_string(*capture) + " is closed: a closed capture cannot grow");
  CaptureState& st = state_for(*capture);
  uint64_t& intra = shared_counter_ ? shared_intragraph_ : st.offset_intragraph;
  // PyTorch keeps the intragraph offset in 32 bits and refuses to wrap it.
  if (intra > uint64_t(UINT32_MAX) - std::min<uint64_t>(increment, UINT32_MAX) || increment > UINT32_MAX)
    throw GeneratorStateError("Increment causes overflow in the offset value (capture " + std::to_string(*capture) +
                              ")");
  a.captured = true;
  a.seed_ptr = st.seed_slot;
  a.offset_ptr = st.offset_slot;
  a.offset_intragraph = intra;
  intra += increment;
  if (shared_counter_) st.offset_intragraph = shared_intragraph_;  // the bug: captures share one counter
  return a;
}

void Generator::replay_prologue(CaptureId id, int stream) {
  std::lock_guard<std::mutex> l(mu_);
  if (phase_of(id, "replay") != Phase::closed)
    throw GeneratorStateError("replay: capture " + std::to_string(id) + " is still open (end the capture first)");
  auto it = states_.find(id);
  if (it == states_.end()) return;  // the graph drew no random numbers
  if (offset_ > UINT64_MAX - it->second.offset_intragraph)
    throw GeneratorStateError("the generator's offset would overflow 64 bits");
  slots_.write(it->second.seed_slot, seed_, stream);
  slots_.write(it->second.offset_slot, offset_, stream);
  offset_ += it->second.offset_intragraph;
}

void Generator::release(CaptureId id) {
  std::lock_guard<std::mutex> l(mu_);
  phase_of(id, "release");
  phases_.erase(id);
  auto it = states_.find(id);
  if (it == states_.end()) return;
  slots_.free_slot(it->second.seed_slot);
  slots_.free_slot(it->second.offset_slot);
  states_.erase(it);
}

}  // namespace wc::rng
