// One T per thread, lent to whoever on that thread asks and not already holding it: what a reader
// of many small entries reuses between them (inflate buffers and state, a digest context) instead
// of making a fresh one per entry. A second lease on the same thread while the first is alive (a
// read nested in a sink) gets a T of its own. A lease may move (it travels in a returned struct),
// and may be used from another thread while its own thread waits for it.
#pragma once

#include <memory>
#include <utility>

namespace wc {

template <typename T>
class ThreadLease {
 public:
  ThreadLease() {
    thread_local auto mine = std::make_unique<Slot>();  // on the heap: a T may be large for TLS
    if (mine->busy) {
      own_ = std::make_unique<T>();
      t_ = own_.get();
    } else {
      mine->busy = true;
      slot_ = mine.get();
      t_ = &mine->value;
    }
  }
  ThreadLease(ThreadLease&& o) noexcept
      : own_(std::move(o.own_)), slot_(std::exchange(o.slot_, nullptr)), t_(std::exchange(o.t_, nullptr)) {}
  ThreadLease(const ThreadLease&) = delete;
  ThreadLease& operator=(const ThreadLease&) = delete;
  ThreadLease& operator=(ThreadLease&&) = delete;
  ~ThreadLease() {
    if (slot_) slot_->busy = false;
  }
  T& operator*() const { return *t_; }
  T* operator->() const { return t_; }

 private:
  struct Slot {
    T value;
    bool busy = false;
  };
  std::unique_ptr<T> own_;
  Slot* slot_ = nullptr;
  T* t_ = nullptr;
};

}  // namespace wc
