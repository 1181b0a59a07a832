// A host-side Philox generator with per-capture RNG state, modelled on PyTorch's CUDA generator
// (docs/DESIGN.md, "Kernel suites"): eager launches get (seed, offset) values and advance the offset; launches
// captured into a graph get pointers to two slots that each replay fills, plus their offset within
// the graph; the generator then advances by the graph's whole increment.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace wc::rng {

using CaptureId = uint64_t;

// What a kernel receives (at_cuda_detail::PhiloxCudaState in PyTorch).
struct PhiloxArgs {
  bool captured = false;
  uint64_t seed = 0, offset = 0;       // eager
  const uint64_t* seed_ptr = nullptr;  // captured: the slots, read when the graph runs
  const uint64_t* offset_ptr = nullptr;
  uint64_t offset_intragraph = 0;
};

// Where a capture's two slots live and how a replay writes them (host memory for the CPU
// backend; device memory written in stream order for CUDA).
class SlotStore {
 public:
  virtual ~SlotStore() = default;
  virtual uint64_t* alloc_slot() = 0;
  virtual void free_slot(uint64_t* slot) = 0;
  virtual void write(uint64_t* slot, uint64_t value, int stream) = 0;
};

// A call the generator's state machine refuses (PyTorch raises the same): the message says which
// capture and why.
class GeneratorStateError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};
class SeedChangeDuringCapture : public GeneratorStateError {
 public:
  using GeneratorStateError::GeneratorStateError;
};

class Generator {
 public:
  // `shared_intragraph_counter` reproduces the old bug class (PyTorch issue 172390): one
  // generator-wide intragraph offset for every capture. Only tests use it, to show the
  // concurrency check catches it.
  Generator(uint64_t seed, SlotStore& slots, bool shared_intragraph_counter = false);
  ~Generator();

  uint64_t seed() const;
  uint64_t offset() const;
  // Rejected while any capture is under way, unless it keeps the current seed.
  void set_seed(uint64_t seed);
  // Only while no capture is open, and only multiples of 4 (a Philox call yields four values).
  void set_offset(uint64_t offset);

  // Each capture is open from capture_begin to capture_end, then closed; every call below checks
  // the state it needs and throws GeneratorStateError naming the capture otherwise.
  enum class Phase { open, closed };
  CaptureId capture_begin();
  // Closes an open capture; returns the graph's whole increment (0 when it drew no random numbers).
  uint64_t capture_end(CaptureId id);
  // `increment`: 32-bit values each thread consumes, rounded up to a multiple of 4 (one Philox
  // call yields four). `capture`: the open capture this launch is recorded into, if any; its
  // intragraph offset is 32-bit in PyTorch and may not overflow.
  PhiloxArgs philox_args(uint64_t increment, const CaptureId* capture);
  // Before each replay of the closed capture `id`: fill its slots in `stream` order, then advance
  // by the whole-graph increment. A graph without RNG leaves the generator alone.
  void replay_prologue(CaptureId id, int stream);
  void release(CaptureId id);
  std::optional<Phase> phase(CaptureId id) const;

  static uint64_t round_increment(uint64_t n) { return (n + 3) / 4 * 4; }

 private:
  struct CaptureState {
    uint64_t* seed_slot = nullptr;
    uint64_t* offset_slot = nullptr;
    uint64_t offset_intragraph = 0;
  };
  CaptureState& state_for(CaptureId id);            // created lazily, on the capture's first RNG use
  Phase& phase_of(CaptureId id, const char* what);  // throws for an unknown capture
  bool any_open() const;

  mutable std::mutex mu_;
  SlotStore& slots_;
  uint64_t seed_, offset_ = 0;
  CaptureId next_id_ = 1;
  std::map<CaptureId, Phase> phases_;
  std::map<CaptureId, CaptureState> states_;
  bool shared_counter_;
  uint64_t shared_intragraph_ = 0;
};

// Unpacks args the way a kernel does: captured launches read the slots at run time.
inline void unpack(const PhiloxArgs& a, uint64_t& seed, uint64_t& offset) {
  if (a.captured) {
    seed = *a.seed_ptr;
    offset = *a.offset_ptr + a.offset_intragraph;
  } else {
    seed = a.seed;
    offset = a.offset;
  }
}

}  // namespace wc::rng
