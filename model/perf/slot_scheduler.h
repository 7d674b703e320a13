// Distributing a kernel's work items over its execution slots (SMs x CTAs per SM): where wave quantization and
// imbalance come from. Items are given as runs of equal cost; a run of m items costs O(m / slots) when the slots'
// loads are within one item's cost of each other (whole rounds are applied at once), else one step per group of
// slots at equal load that its items land on (slots at equal loads are held as one entry; O(distinct loads) a step).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace lcab::perf {

/// `count` consecutive work items of `cost_us` each.
struct CostRun {
  double cost_us = 0;
  int64_t count = 0;
};

struct SlotSchedule {
  double makespan_us = 0;    ///< when the last slot finishes
  double busy_total_us = 0;  ///< sum of item costs
  int64_t items = 0;
  int64_t slots = 0;
  double busy_mean_us() const { return slots > 0 ? busy_total_us / static_cast<double>(slots) : 0; }
  /// makespan / mean busy time: 1 when perfectly balanced.
  double imbalance() const { return busy_total_us > 0 ? makespan_us / busy_mean_us() : 1; }
};

/// Items in the given order, each to the slot that becomes free first (a hardware grid scheduler, in waves).
SlotSchedule schedule_in_order(std::span<const CostRun> runs, int64_t slots);
/// Longest item first, each to the least-loaded slot (a persistent kernel with a longest-first work list).
SlotSchedule schedule_longest_first(std::vector<CostRun> runs, int64_t slots);
/// The same, sorting and merging `runs` in place (their contents are left unspecified): no allocation once the
/// calling thread's buffer has grown (the kernel cost model's millions of small calls).
SlotSchedule schedule_longest_first_in_place(std::span<CostRun> runs, int64_t slots);

}  // namespace lcab::perf
