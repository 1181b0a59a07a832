#include "util/budget.h"

#include "util/strings.h"

namespace wc {

namespace {
thread_local MemoryBudget* t_budget = nullptr;
thread_local std::string_view t_entry;
}  // namespace

void MemoryBudget::charge(uint64_t bytes, std::string_view structure) {
  uint64_t before = used_.fetch_add(bytes);
  if (before + bytes <= limit_ && before + bytes >= before) return;
  std::string what = "the analysis would hold more than the memory budget of " + human_bytes(limit_) +
                     " per wheel (limits.max_analysis_bytes) for " + std::string(structure) + " (" +
                     human_bytes(before) + " held, " + human_bytes(bytes) + " more asked)";
  {
    std::lock_guard<std::mutex> l(mu_);
    if (message_.empty()) message_ = what, entry_ = std::string(t_entry);
  }
  throw BudgetExceeded(what);
}

bool MemoryBudget::exceeded() const {
  std::lock_guard<std::mutex> l(mu_);
  return !message_.empty();
}

std::pair<std::string, std::string> MemoryBudget::first_excess() const {
  std::lock_guard<std::mutex> l(mu_);
  return {message_, entry_};
}

BudgetScope::BudgetScope(MemoryBudget* budget, std::string_view entry) : prev_budget_(t_budget), prev_entry_(t_entry) {
  t_budget = budget;
  t_entry = entry;
}

BudgetScope::~BudgetScope() {
  t_budget = prev_budget_;
  t_entry = prev_entry_;
}

void charge_memory(uint64_t bytes, std::string_view structure) {
  if (t_budget) t_budget->charge(bytes, structure);
}

MemoryBudget* current_budget() { return t_budget; }
std::string_view current_budget_entry() { return t_entry; }

}  // namespace wc
