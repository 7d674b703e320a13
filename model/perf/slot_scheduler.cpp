#include "model/perf/slot_scheduler.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "model/error.h"

namespace lcab::perf {
namespace {

// Slot loads as a min-heap plus a lazy offset added to every slot (whole rounds), and the maximum load. Giving
// an item to the least-loaded slot replaces the heap's top and sifts it down once (a pop and a push would sift
// twice); the loads held are the same multiset either way, so the same numbers come out.
class SlotLoads {
 public:
  // Only slots that got work are in the heap; the others are idle at load 0 (the minimum).
  explicit SlotLoads(int64_t slots) : slots_(slots) {}

  void add(const CostRun& run) {
    int64_t left = run.count;
    const double c = run.cost_us;
    while (left > 0) {
      // While idle slots remain, they are the least loaded: fill them first.
      if (static_cast<int64_t>(heap_.size()) < slots_) {
        const int64_t idle = slots_ - static_cast<int64_t>(heap_.size());
        const int64_t take = std::min(idle, left);
        for (int64_t n = 0; n < take; ++n) {
          heap_.push_back(c - offset_);
          std::push_heap(heap_.begin(), heap_.end(), std::greater<double>());
        }
        max_ = std::max(max_, c);  // offset_ is 0 until every slot has work
        left -= take;
        continue;
      }
      const double min_load = heap_.front() + offset_;
      if (left >= slots_ && max_ - min_load <= c) {
        // Every slot takes exactly one item per round (see the header): apply whole rounds at once.
        const int64_t rounds = left / slots_;
        offset_ += static_cast<double>(rounds) * c;
        max_ += static_cast<double>(rounds) * c;
        left -= rounds * slots_;
        continue;
      }
      const double load = min_load + c;
      replace_top(load - offset_);
      max_ = std::max(max_, load);
      --left;
    }
  }
  double max() const { return max_; }

 private:
  // Replaces the least value by v and restores the min-heap order.
  void replace_top(double v) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      const size_t left = 2 * i + 1;
      if (left >= n) break;
      const size_t child = left + 1 < n && heap_[left + 1] < heap_[left] ? left + 1 : left;
      if (!(heap_[child] < v)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = v;
  }

  int64_t slots_;
  std::vector<double> heap_;  ///< min-heap (std::greater) of loads - offset_
  double offset_ = 0;
  double max_ = 0;
};

SlotSchedule run(std::span<const CostRun> runs, int64_t slots) {
  LCAB_CHECK(slots > 0, "a kernel needs at least one execution slot, got " << slots);
  SlotSchedule result;
  result.slots = slots;
  int64_t items = 0;
  for (const CostRun& r : runs) items += std::max<int64_t>(r.count, 0);
  if (items <= slots) {
    // Every item gets an idle slot of its own: the makespan is the longest item (what SlotLoads gives, without
    // its heap; small CP items are this case by the million).
    for (const CostRun& r : runs) {
      if (r.count <= 0) continue;
      LCAB_CHECK(r.cost_us >= 0, "work item cost must be >= 0, got " << r.cost_us);
      result.makespan_us = std::max(result.makespan_us, r.cost_us);
      result.busy_total_us += r.cost_us * static_cast<double>(r.count);
      result.items += r.count;
    }
    return result;
  }
  SlotLoads loads(slots);
  for (const CostRun& r : runs) {
    if (r.count <= 0) continue;
    LCAB_CHECK(r.cost_us >= 0, "work item cost must be >= 0, got " << r.cost_us);
    loads.add(r);
    result.busy_total_us += r.cost_us * static_cast<double>(r.count);
    result.items += r.count;
  }
  result.makespan_us = loads.max();
  return result;
}
}  // namespace

SlotSchedule schedule_in_order(std::span<const CostRun> runs, int64_t slots) { return run(runs, slots); }

SlotSchedule schedule_longest_first(std::vector<CostRun> runs, int64_t slots) {
  std::sort(runs.begin(), runs.end(), [](const CostRun& a, const CostRun& b) { return a.cost_us > b.cost_us; });
  // Merge equal costs so that whole rounds apply across rows of equal work.
  std::vector<CostRun> merged;
  for (const CostRun& r : runs) {
    if (!merged.empty() && merged.back().cost_us == r.cost_us) merged.back().count += r.count;
    else merged.push_back(r);
  }
  return run(merged, slots);
}

}  // namespace lcab::perf
