// Resource bounds that hold as mechanisms, not per case:
// - MemoryBudget: what one wheel's analysis may hold in structures whose size the input's counts
//   decide (symbol names, version needs, imports, fatbin entries). Readers charge it before they
//   copy; past the limit the charge throws BudgetExceeded (a ParseError, so every format boundary
//   that already turns malformed bytes into a finding stops there too), and the budget keeps the
//   first excess, entry and structure named, for the wheel's WC403 finding. The charging thread
//   finds its budget through a BudgetScope, so readers need no extra parameter; a thread with no
//   scope charges nothing.
// - GuardedThread: a std::thread whose body's exceptions (std::bad_alloc included) are kept for
//   whoever joins it instead of ending the process; the joiner rethrows them on its own thread,
//   inside the per-wheel error boundary.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "util/cursor.h"

namespace wc {

class BudgetExceeded : public ParseError {
 public:
  explicit BudgetExceeded(std::string what) : ParseError(std::move(what), 0) {}
};

class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t limit) : limit_(limit) {}
  // Charges `bytes` for `structure` (".dynsym names", "PE import names", ...); throws
  // BudgetExceeded when the wheel's total would pass the limit.
  void charge(uint64_t bytes, std::string_view structure);
  uint64_t used() const { return used_.load(); }
  uint64_t limit() const { return limit_; }
  // The first excess: "the memory budget of 1 GiB ... : .dynsym names" and the entry it was in.
  bool exceeded() const;
  std::pair<std::string, std::string> first_excess() const;

 private:
  std::atomic<uint64_t> used_{0};
  uint64_t limit_;
  mutable std::mutex mu_;
  std::string message_, entry_;
};

// Makes `budget` the one this thread charges, with `entry` (the wheel entry being read) named in
// its excess, until the scope ends (scopes nest). `entry` is viewed, not copied (one scope per
// entry of a 100,000-entry wheel): it must outlive the scope.
class BudgetScope {
 public:
  BudgetScope(MemoryBudget* budget, std::string_view entry);
  ~BudgetScope();
  BudgetScope(const BudgetScope&) = delete;
  BudgetScope& operator=(const BudgetScope&) = delete;

 private:
  MemoryBudget* prev_budget_;
  std::string_view prev_entry_;
};

// Charges the current thread's budget (nothing without a scope).
void charge_memory(uint64_t bytes, std::string_view structure);
// The current thread's budget and entry, to hand to a thread it starts.
MemoryBudget* current_budget();
std::string_view current_budget_entry();

class GuardedThread {
 public:
  // Runs `body` on a new thread that inherits the caller's budget scope.
  template <typename F>
  explicit GuardedThread(F&& body)
      : thread_([this, budget = current_budget(), entry = std::string(current_budget_entry()),
                 body = std::forward<F>(body)]() mutable {
          try {
            BudgetScope scope(budget, entry);
            body();
          } catch (...) {
            error_ = std::current_exception();
          }
        }) {}
  ~GuardedThread() { join(); }
  GuardedThread(const GuardedThread&) = delete;
  GuardedThread& operator=(const GuardedThread&) = delete;
  void join() {
    if (thread_.joinable()) thread_.join();
  }
  // After join(): what the body threw, or null.
  std::exception_ptr error() const { return error_; }

 private:
  std::exception_ptr error_;
  std::thread thread_;  // last: started once error_ exists
};

}  // namespace wc
