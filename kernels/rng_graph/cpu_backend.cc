// The CPU reference backend: kernels are closures; a capturing stream records them into a graph
// instead of running them, and a replay runs the recorded closures in order.
#include <deque>
#include <functional>
#include <map>
#include <mutex>

#include "philox.h"
#include "rng_graph/backend.h"

namespace wc::rng {
namespace {

class HostSlots : public SlotStore {
 public:
  uint64_t* alloc_slot() override { return new uint64_t(0); }
  void free_slot(uint64_t* s) override { delete s; }
  void write(uint64_t* slot, uint64_t v, int) override { *slot = v; }  // host order is program order
};

// The reference kernel, shared with the CUDA backend's expectations.
void fill_reference(std::vector<uint32_t>& out, uint32_t threads, uint32_t per_thread, const PhiloxArgs& args) {
  uint64_t seed, offset;
  unpack(args, seed, offset);
  for (uint32_t t = 0; t < threads; ++t) {
    auto s = philox::Stream::init(seed, t, offset);
    for (uint32_t j = 0; j < per_thread; ++j) out[size_t(t) * per_thread + j] = s.next();
  }
}

class CpuBackend : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  SlotStore& slots() override { return slots_; }
  int new_stream() override {
    std::lock_guard<std::mutex> l(mu_);
    capturing_.push_back(-1);
    return static_cast<int>(capturing_.size() - 1);
  }
  int alloc(size_t words) override {
    std::lock_guard<std::mutex> l(mu_);
    buffers_.emplace_back(words, 0u);
    return static_cast<int>(buffers_.size() - 1);
  }
  void fill(int stream, int buffer, uint32_t threads, uint32_t per_thread, const PhiloxArgs& args) override {
    submit(stream,
           [this, buffer, threads, per_thread, args] { fill_reference(buffers_[buffer], threads, per_thread, args); });
  }
  void add_one(int stream, int buffer) override {
    submit(stream, [this, buffer] {
      for (auto& w : buffers_[buffer]) ++w;
    });
  }
  void begin_capture(int stream) override {
    std::lock_guard<std::mutex> l(mu_);
    graphs_.emplace_back();
    capturing_[stream] = static_cast<int>(graphs_.size() - 1);
  }
  int end_capture(int stream) override {
    std::lock_guard<std::mutex> l(mu_);
    int g = capturing_[stream];
    capturing_[stream] = -1;
    return g;
  }
  void replay(int, int graph) override {
    std::vector<std::function<void()>> ops;
    {
      std::lock_guard<std::mutex> l(mu_);
      ops = graphs_[graph];
    }
    for (auto& op : ops) op();
  }
  std::vector<uint32_t> read(int buffer) override {
    std::lock_guard<std::mutex> l(mu_);
    return buffers_[buffer];
  }

 private:
  void submit(int stream, std::function<void()> op) {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (capturing_[stream] >= 0) {
        graphs_[capturing_[stream]].push_back(std::move(op));
        return;
      }
    }
    op();
  }

  std::mutex mu_;
  HostSlots slots_;
  std::vector<int> capturing_;
  std::deque<std::vector<uint32_t>> buffers_;  // stable addresses while others are added
  std::deque<std::vector<std::function<void()>>> graphs_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace wc::rng
