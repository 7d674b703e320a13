#include "model/perf/slot_scheduler.h"

#include <algorithm>
#include <vector>

#include "model/error.h"

namespace lcab::perf {
namespace {

// Slot loads as a multiset of values with counts (slots at equal loads share one entry) plus a lazy offset added
// to every slot (whole rounds), and the maximum load. Each item goes to a least-loaded slot; consecutive items of
// a run take the slots at the least load together while they last, in one step (the loads and the arithmetic are
// an item-by-item min-heap's: the same multiset of loads, so the same numbers come out).
class SlotLoads {
 public:
  struct Load {
    double load;    ///< load - offset_
    int64_t count;  ///< slots at it
  };
  // Only slots that got work are held; the others are idle at load 0 (the minimum). `buffer` holds the loads (its
  // contents are replaced; kept by the caller so that its capacity is reused).
  SlotLoads(int64_t slots, std::vector<Load>& buffer) : slots_(slots), loads_(buffer) { loads_.clear(); }

  void add(const CostRun& run) {
    int64_t left = run.count;
    const double c = run.cost_us;
    while (left > 0) {
      // While idle slots remain, they are the least loaded: fill them first.
      if (used_ < slots_) {
        const int64_t take = std::min(slots_ - used_, left);
        insert(c - offset_, take);
        used_ += take;
        max_ = std::max(max_, c);  // offset_ is 0 until every slot has work
        left -= take;
        continue;
      }
      const double least = loads_[first_].load;
      const double min_load = least + offset_;
      if (left >= slots_ && max_ - min_load <= c) {
        // Every slot takes exactly one item per round (see the header): apply whole rounds at once.
        const int64_t rounds = left / slots_;
        offset_ += static_cast<double>(rounds) * c;
        max_ += static_cast<double>(rounds) * c;
        left -= rounds * slots_;
        continue;
      }
      const double load = min_load + c;
      const double stored = load - offset_;
      // Items one at a time would each take a slot at the least load while any is left there and the new load
      // stays above it; when it equals it (c = 0), every item of the run gets this load; below it (rounding
      // against the offset), only one item does before it becomes the least.
      const int64_t take = stored > least ? std::min(left, loads_[first_].count) : stored == least ? left : 1;
      if (stored != least) {
        if ((loads_[first_].count -= take) == 0) ++first_;
        insert(stored, take);
      }
      max_ = std::max(max_, load);
      left -= take;
    }
  }
  double max() const { return max_; }

 private:
  // Adds `count` slots at stored load v.
  void insert(double v, int64_t count) {
    if (first_ >= kCompactAt) {
      loads_.erase(loads_.begin(), loads_.begin() + static_cast<std::ptrdiff_t>(first_));
      first_ = 0;
    }
    const auto at = std::lower_bound(loads_.begin() + static_cast<std::ptrdiff_t>(first_), loads_.end(), v,
                                     [](const Load& l, double x) { return l.load < x; });
    if (at != loads_.end() && at->load == v) at->count += count;
    else loads_.insert(at, Load{v, count});
  }
  static constexpr size_t kCompactAt = 64;

  int64_t slots_;
  int64_t used_ = 0;           ///< slots with work
  std::vector<Load>& loads_;   ///< ascending by load; entries before first_ are spent
  size_t first_ = 0;
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
  thread_local std::vector<SlotLoads::Load> buffer;  // reused: schedules are made by the million
  SlotLoads loads(slots, buffer);
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
  return schedule_longest_first_in_place(runs, slots);
}

SlotSchedule schedule_longest_first_in_place(std::span<CostRun> runs, int64_t slots) {
  std::sort(runs.begin(), runs.end(), [](const CostRun& a, const CostRun& b) { return a.cost_us > b.cost_us; });
  // Merge equal costs so that whole rounds apply across rows of equal work (in place: runs[0, merged)).
  size_t merged = 0;
  for (const CostRun& r : runs) {
    if (merged > 0 && runs[merged - 1].cost_us == r.cost_us) runs[merged - 1].count += r.count;
    else runs[merged++] = r;
  }
  return run(runs.first(merged), slots);
}

}  // namespace lcab::perf
