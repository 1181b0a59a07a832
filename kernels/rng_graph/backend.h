// Where the RNG suite's kernels run: the CPU reference (closures recorded and replayed like a
// graph) or CUDA (real kernels, real CUDA graphs). The suite's checks are written once against
// this interface and run on each backend.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rng_graph/generator.h"

namespace wc::rng {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual SlotStore& slots() = 0;
  virtual int new_stream() = 0;
  virtual int alloc(size_t words) = 0;  // a buffer of 32-bit words, zeroed
  // The random-fill kernel: thread t writes `per_thread` words of the curand stream
  // (seed, subsequence = t, offset) to out[t * per_thread ...]. Recorded when `stream` is capturing.
  virtual void fill(int stream, int buffer, uint32_t threads, uint32_t per_thread, const PhiloxArgs& args) = 0;
  // A kernel that draws nothing (graphs without RNG).
  virtual void add_one(int stream, int buffer) = 0;
  // Thread-local capture mode on the CUDA side: each thread captures only its own stream.
  virtual void begin_capture(int stream) = 0;
  virtual int end_capture(int stream) = 0;  // returns a graph id
  virtual void replay(int stream, int graph) = 0;
  virtual std::vector<uint32_t> read(int buffer) = 0;  // waits for all work
};

// One replay of a closed capture: fills its seed/offset slots on `stream`, then launches its graph
// on the same stream, so the kernels read the values written for this replay.
inline void replay(Backend& be, Generator& g, CaptureId capture, int graph, int stream) {
  g.replay_prologue(capture, stream);
  be.replay(stream, graph);
}

std::unique_ptr<Backend> make_cpu_backend();
// nullptr, with the reason, when this build has no CUDA or the machine has no usable GPU.
std::unique_ptr<Backend> make_cuda_backend(std::string* why);
bool cuda_built();

// Device helpers for the bit-exactness checks (CUDA builds only; empty + reason otherwise).
std::vector<uint32_t> device_philox_stream(uint64_t seed, uint64_t subsequence, uint64_t offset, size_t count,
                                           std::string* why);
std::vector<uint32_t> device_curand_stream(uint64_t seed, uint64_t subsequence, uint64_t offset, size_t count,
                                           std::string* why);
std::vector<float> device_curand_uniform(uint64_t seed, uint64_t subsequence, uint64_t offset, size_t count,
                                         std::string* why);
// Words per second of the fill kernel on the device (bench), or 0 + reason.
double device_fill_rate(uint32_t threads, uint32_t per_thread, int reps, std::string* why);
// The same with curand's own Philox generator (curand_init + curand), for comparison.
double device_curand_fill_rate(uint32_t threads, uint32_t per_thread, int reps, std::string* why);

}  // namespace wc::rng
