#include "rng_graph/generator.h"

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

void Generator::set_seed(uint64_t seed) {
  std::lock_guard<std::mutex> l(mu_);
  bool capturing = false;
  for (const auto& [id, open] : ongoing_) capturing |= open;
  if (capturing) {
    if (seed != seed_)
      throw SeedChangeDuringCapture("cannot change the generator's seed while a graph capture is under way");
    return;  // the same seed during capture is a no-op (the offset must not move under the graph)
  }
  seed_ = seed;
  offset_ = 0;  // manual_seed restarts the stream, as PyTorch's set_current_seed does
}

void Generator::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> l(mu_);
  offset_ = offset;
}

CaptureId Generator::capture_begin() {
  std::lock_guard<std::mutex> l(mu_);
  CaptureId id = next_id_++;
  ongoing_[id] = true;
  return id;
}

uint64_t Generator::capture_end(CaptureId id) {
  std::lock_guard<std::mutex> l(mu_);
  ongoing_[id] = false;
  auto it = states_.find(id);
  return it == states_.end() ? 0 : it->second.offset_intragraph;
}

Generator::CaptureState& Generator::state_for(CaptureId id) {
  auto it = states_.find(id);
  if (it != states_.end()) return it->second;
  CaptureState st;
  st.seed_slot = slots_.alloc_slot();
  st.offset_slot = slots_.alloc_slot();
  return states_.emplace(id, st).first->second;
}

PhiloxArgs Generator::philox_args(uint64_t increment, const CaptureId* capture) {
  std::lock_guard<std::mutex> l(mu_);
  increment = round_increment(increment);
  PhiloxArgs a;
  if (!capture) {
    a.seed = seed_;
    a.offset = offset_;
    offset_ += increment;
    return a;
  }
  CaptureState& st = state_for(*capture);
  a.captured = true;
  a.seed_ptr = st.seed_slot;
  a.offset_ptr = st.offset_slot;
  if (shared_counter_) {  // the bug: captures share one counter
    a.offset_intragraph = shared_intragraph_;
    shared_intragraph_ += increment;
    st.offset_intragraph = shared_intragraph_;
  } else {
    a.offset_intragraph = st.offset_intragraph;
    st.offset_intragraph += increment;
  }
  return a;
}

void Generator::replay_prologue(CaptureId id, int stream) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = states_.find(id);
  if (it == states_.end()) return;  // the graph drew no random numbers
  slots_.write(it->second.seed_slot, seed_, stream);
  slots_.write(it->second.offset_slot, offset_, stream);
  offset_ += it->second.offset_intragraph;
}

void Generator::release(CaptureId id) {
  std::lock_guard<std::mutex> l(mu_);
  ongoing_.erase(id);
  auto it = states_.find(id);
  if (it == states_.end()) return;
  slots_.free_slot(it->second.seed_slot);
  slots_.free_slot(it->second.offset_slot);
  states_.erase(it);
}

}  // namespace wc::rng
