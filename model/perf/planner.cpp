#include "model/perf/planner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "model/error.h"

namespace lcab::perf {
namespace {

cp::CpConfig base_config(const PlanRequest& request, const ClusterShape& cluster, const std::string& method) {
  cp::CpConfig c;
  c.method = method;
  c.gpus = cluster.gpus;
  c.gpus_per_node = cluster.gpus_per_node;
  c.workload = request.workload;
  return c;
}

// LoongTrain's windows are a few inner rings; more than 8 windows is an outer ring of tiny inner rings.
constexpr int64_t kMaxDefaultWindows = 8;

std::vector<int64_t> window_counts(const PlanRequest& request, int64_t ring) {
  std::vector<int64_t> out;
  if (!request.windows.empty()) {
    for (int64_t w : request.windows)
      if (w > 1 && w < ring && ring % w == 0) out.push_back(w);
    return out;
  }
  for (int64_t w = 2; w < ring && w <= kMaxDefaultWindows; w *= 2)
    if (ring % w == 0) out.push_back(w);
  return out;
}

}  // namespace

std::string describe_config(const cp::CpConfig& c) {
  std::string text = c.method;
  if (c.method == "usp" || c.method == "loongtrain") {
    text += " " + std::to_string(c.ulysses_degree) + "x" + std::to_string(c.ring_degree);
    if (c.method == "loongtrain") text += " w" + std::to_string(c.windows);
    text += " " + std::string(cp::to_string(c.placement));
  }
  return text;
}

std::vector<cp::CpConfig> plan_candidates(const PlanRequest& request, const ClusterShape& cluster) {
  std::vector<std::string> methods = request.methods;
  if (methods.empty()) methods = cp::builtin_cp_methods().names();
  const std::vector<std::pair<int64_t, int64_t>> grids =
      cp::valid_degrees(cluster.gpus, request.workload.heads, request.workload.kv_heads);
  std::vector<cp::CpConfig> out;
  for (const std::string& method : methods) {
    cp::builtin_cp_methods().find(method);  // unknown names: an error listing the valid ones
    const cp::CpConfig base = base_config(request, cluster, method);
    if (method != "usp" && method != "loongtrain") {
      out.push_back(base);
      continue;
    }
    if (request.one_config_per_method) {
      cp::CpConfig c = base;
      for (auto [u, r] : grids) {
        if (u < 2 || r < 2 || u > cluster.gpus_per_node) continue;
        c.ulysses_degree = u;
        c.ring_degree = r;
      }
      if (c.ulysses_degree == 0) continue;  // no 2-D grid for this GPU count
      if (method == "loongtrain") {
        const std::vector<int64_t> w = window_counts(request, c.ring_degree);
        c.windows = w.empty() ? 1 : w.front();
      }
      out.push_back(c);
      continue;
    }
    for (auto [u, r] : grids) {
      if (u < 2 || r < 2) continue;  // 1-D cases are ring and ulysses themselves
      for (cp::Placement placement : {cp::Placement::kUlyssesIntra, cp::Placement::kRingIntra}) {
        cp::CpConfig c = base;
        c.ulysses_degree = u;
        c.ring_degree = r;
        c.placement = placement;
        if (method == "usp") {
          out.push_back(c);
          continue;
        }
        for (int64_t w : window_counts(request, r)) {
          c.windows = w;
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

size_t Plan::pruned() const {
  return static_cast<size_t>(
      std::count_if(entries.begin(), entries.end(), [](const PlanEntry& e) { return e.pruned; }));
}

namespace {

// Runs work(worker) on `threads` threads (the caller's among them) and rethrows the first unexpected exception.
template <class Work>
void run_workers(int threads, Work&& work) {
  std::mutex mutex;
  std::exception_ptr unexpected;
  auto guarded = [&](int worker) {
    try {
      work(worker);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!unexpected) unexpected = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(guarded, t);
  guarded(0);
  for (std::thread& t : pool) t.join();
  if (unexpected) std::rethrow_exception(unexpected);
}

// What a worker does next with a candidate: simulate it, or replace its sampled bound by its full bound.
struct PlanStep {
  size_t candidate = 0;
  bool refine = false;
};

// Which candidates are simulated: the rule of PlanRequest::prune on the candidates in increasing order of their
// full bounds, decided in order although workers simulate several at once (a decision that depends on unfinished
// simulations waits for them), so that the outcome never depends on timing.
//
// Candidates may start with a sampled bound (CpBound::sampled: at most the full bound, peak memory and so group
// exact). The decisions are those the full bounds give, without making every full bound: the next candidate in
// order is the unprocessed one of least (bound, index); when its bound is sampled it is refined (a PlanStep with
// refine: the worker makes the full bound and calls refined()) before anything is decided, since its full bound may
// put others first. It is simulated when its bound is full. So the candidates are decided in increasing order of
// (full bound, index), as with every bound full: each unprocessed one's full bound is at least its current one.
// A candidate is pruned when its group has simulated ones, none in flight, and its bound, sampled or full, is at
// least their slowest time: its full bound is then too, and so is every unprocessed one's of its group, so the rule
// on full bounds prunes it and all of them as well. Its sampled bound is then what the plan keeps of it. Whether a
// sampled bound is refined or pruned on waits, like pruning, for the group's simulations in flight, so that which
// bound a pruned candidate keeps does not depend on timing either.
class PruningOrder {
 public:
  // candidates: those with a bound, in index order; with prune false, simulated in that order and never refined.
  PruningOrder(std::vector<size_t> candidates, std::vector<int> group, std::vector<double> bound_us,
               std::vector<uint8_t> sampled, bool prune)
      : remaining_(std::move(candidates)),
        group_(std::move(group)),
        bound_us_(std::move(bound_us)),
        sampled_(std::move(sampled)),
        refining_(sampled_.size(), 0),
        prune_(prune) {}

  // The next step, or nothing when the rest is pruned or done.
  std::optional<PlanStep> next() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!remaining_.empty()) {
      const size_t at = first_in_order();
      const size_t c = remaining_[at];
      Group& g = groups_[group_[c]];
      const bool may_prune = prune_ && g.simulated > 0;
      const bool above_slowest = bound_us_[c] >= g.slowest_us;
      // Decisions that a simulation in flight could change wait for it (the slowest time so far may still grow):
      // pruning, and refining a sampled bound (the slowest time may grow past it and prune it on the sample).
      if (refining_[c] || (may_prune && (above_slowest || sampled_[c]) && g.in_flight > 0)) {
        finished_.wait(lock);  // or another worker makes its full bound
        continue;
      }
      if (may_prune && above_slowest) {
        pruned_.push_back(c);  // and every later one of its group: their full bounds are no lower
        remaining_.erase(remaining_.begin() + static_cast<std::ptrdiff_t>(at));
        continue;
      }
      if (sampled_[c]) {
        refining_[c] = 1;
        return PlanStep{c, true};
      }
      remaining_.erase(remaining_.begin() + static_cast<std::ptrdiff_t>(at));
      ++g.simulated;
      ++g.in_flight;
      return PlanStep{c, false};
    }
    return std::nullopt;
  }
  // The full bound of a candidate handed out to refine.
  void refined(size_t c, double full_bound_us) {
    std::lock_guard<std::mutex> lock(mutex_);
    bound_us_[c] = full_bound_us;
    sampled_[c] = 0;
    refining_[c] = 0;
    finished_.notify_all();
  }
  // A candidate handed out to refine whose full bound failed: it is neither simulated nor pruned.
  void dropped(size_t c) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase(remaining_, c);
    refining_[c] = 0;
    finished_.notify_all();
  }
  // A simulation is done (time_us: its time; failed: it threw and does not count).
  void done(size_t c, double time_us, bool failed) {
    std::lock_guard<std::mutex> lock(mutex_);
    Group& g = groups_[group_[c]];
    --g.in_flight;
    if (failed) --g.simulated;
    else g.slowest_us = std::max(g.slowest_us, time_us);
    finished_.notify_all();
  }
  const std::vector<size_t>& pruned() const { return pruned_; }

 private:
  struct Group {
    int simulated = 0;
    int in_flight = 0;
    double slowest_us = 0;
  };
  // The index in remaining_ of the next candidate: with prune, least (bound, index) (remaining_ is in index order);
  // without, the first.
  size_t first_in_order() const {
    size_t best = 0;
    if (!prune_) return best;
    for (size_t n = 1; n < remaining_.size(); ++n)
      if (bound_us_[remaining_[n]] < bound_us_[remaining_[best]]) best = n;
    return best;
  }
  std::vector<size_t> remaining_;
  std::vector<int> group_;
  std::vector<double> bound_us_;
  std::vector<uint8_t> sampled_;
  std::vector<uint8_t> refining_;
  bool prune_;
  std::mutex mutex_;
  std::condition_variable finished_;
  Group groups_[2];
  std::vector<size_t> pruned_;
};

// Replaces candidate c's sampled bound by its full bound and tells `pruning`; a candidate whose full bound fails
// loses its bound (then it is skipped with the error).
void refine_bound(CpPredictor& predictor, size_t c, const cp::CpConfig& candidate, const PlanRequest& request,
                  std::optional<CpBound>& bound, std::string& error, PruningOrder& pruning) {
  try {
    bound = predictor.bound(candidate, request.kernel, request.passes, true, BoundSampling{});
    pruning.refined(c, bound->time_lower_bound_us);
  } catch (const Error& e) {
    error = e.what();
    bound.reset();
    pruning.dropped(c);
  } catch (...) {
    pruning.dropped(c);
    throw;
  }
}

}  // namespace

Plan make_plan(const HardwareProfile& profile, const ClusterShape& cluster, const PlanRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  validate_cluster(cluster);
  LCAB_CHECK(request.workload.mask, "a plan needs a mask");
  const std::vector<cp::CpConfig> candidates = plan_candidates(request, cluster);
  const size_t n = candidates.size();
  Plan plan;
  plan.memory_limit_bytes =
      request.memory_limit_bytes > 0 ? request.memory_limit_bytes : static_cast<int64_t>(profile.gpu.memory_bytes.value);
  int threads = request.threads > 0 ? request.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::clamp<int>(threads, 1, std::max<int>(1, static_cast<int>(n)));
  // One predictor per worker (kernel caches are not shared); item tables are shared by all.
  auto items = request.item_cache ? request.item_cache : std::make_shared<RingItemCostCache>();
  std::vector<std::unique_ptr<CpPredictor>> predictors;
  for (int t = 0; t < threads; ++t) predictors.push_back(std::make_unique<CpPredictor>(profile, cluster, items));

  // Bounds of every candidate; a config its method rejects is skipped with the method's reason.
  std::vector<std::optional<CpBound>> bounds(n);
  std::vector<std::string> errors(n);
  std::atomic<size_t> next{0};
  run_workers(threads, [&](int worker) {
    for (size_t c = next++; c < n; c = next++) {
      try {
        bounds[c] = predictors[worker]->bound(candidates[c], request.kernel, request.passes, request.prune,
                                              request.prune ? request.sampled_bounds : BoundSampling{});
      } catch (const Error& e) {
        errors[c] = e.what();
      }
    }
  });

  // Simulations in increasing order of bound, pruned as PlanRequest::prune says.
  std::vector<size_t> order;
  std::vector<int> group(n, 0);
  std::vector<double> bound_us(n, 0);
  std::vector<uint8_t> sampled(n, 0);
  for (size_t c = 0; c < n; ++c) {
    if (!bounds[c]) continue;
    order.push_back(c);
    group[c] = bounds[c]->peak_mem_bytes <= plan.memory_limit_bytes ? 0 : 1;
    bound_us[c] = bounds[c]->time_lower_bound_us;
    sampled[c] = bounds[c]->sampled ? 1 : 0;
  }
  if (!request.prune)  // every candidate is simulated: the longest first, so that workers finish together
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bounds[a]->work > bounds[b]->work; });
  PruningOrder pruning(order, group, bound_us, sampled, request.prune);
  std::vector<std::optional<CpPrediction>> predictions(n);
  run_workers(threads, [&](int worker) {
    while (const std::optional<PlanStep> step = pruning.next()) {
      const std::optional<size_t> c = step->candidate;
      if (step->refine) {
        refine_bound(*predictors[worker], *c, candidates[*c], request, bounds[*c], errors[*c], pruning);
        continue;
      }
      try {
        predictions[*c] = predictors[worker]->predict(candidates[*c], request.kernel, request.passes,
                                                      PredictOptions{false, false, false});
        pruning.done(*c, predictions[*c]->time_us(), false);
      } catch (const Error& e) {
        errors[*c] = e.what();
        pruning.done(*c, 0, true);
      } catch (...) {
        pruning.done(*c, 0, true);
        throw;
      }
    }
  });

  for (size_t c = 0; c < n; ++c) {
    if (!bounds[c] || (!predictions[c] && !errors[c].empty())) {
      plan.skipped.push_back({candidates[c], errors[c]});
      continue;
    }
    PlanEntry e;
    e.bound = *bounds[c];
    e.fits = group[c] == 0;
    if (predictions[c]) {
      e.prediction = std::move(*predictions[c]);
      e.bound.peak_mem_bytes = e.prediction.peak_mem_bytes();  // the same, or not bounded (PlanRequest::prune off)
      e.fits = e.bound.peak_mem_bytes <= plan.memory_limit_bytes;
    } else {
      e.pruned = true;
      e.prediction.config = e.bound.config;
    }
    plan.entries.push_back(std::move(e));
  }
  std::stable_sort(plan.entries.begin(), plan.entries.end(), [](const PlanEntry& a, const PlanEntry& b) {
    if (a.fits != b.fits) return a.fits;
    if (a.pruned != b.pruned) return b.pruned;
    return a.pruned ? a.bound.time_lower_bound_us < b.bound.time_lower_bound_us
                    : a.prediction.time_us() < b.prediction.time_us();
  });
  plan.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return plan;
}

std::vector<Plan> make_plans(const HardwareProfile& profile, const std::vector<ClusterShape>& clusters,
                             PlanRequest request) {
  std::vector<Plan> out;
  make_plan_groups(
      profile, clusters, 1, request.threads, [&](size_t) { return request; },
      [&](size_t, std::vector<Plan> plans) { out = std::move(plans); });
  return out;
}

void make_plan_groups(const HardwareProfile& profile, const std::vector<ClusterShape>& clusters, size_t groups,
                      int threads, const std::function<PlanRequest(size_t)>& make_request,
                      const std::function<void(size_t, std::vector<Plan>)>& done) {
  const size_t n = clusters.size();
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  const int workers = std::clamp<int>(threads, 1, std::max<int>(1, static_cast<int>(n)));
  enum class Made { kNot, kMaking, kYes };
  struct Group {
    Made made = Made::kNot;
    PlanRequest request;
    std::vector<std::optional<Plan>> plans;
    size_t finished = 0;
  };
  std::vector<std::unique_ptr<Group>> state;
  for (size_t g = 0; g < groups; ++g) {
    state.push_back(std::make_unique<Group>());
    state.back()->plans.resize(n);
  }
  // Tasks t = 0 .. groups * n - 1 in order: group t / n, its clusters last first. A worker that draws a task of a
  // group another worker is still making (a new mask can take seconds: block_sparse at 1M tokens, 12 s on a 2-core
  // VM) sets it aside and draws the next, so that it works on later groups instead of waiting; tasks set aside go
  // first once their group is made. All under `mutex`, except making a request and planning.
  std::mutex mutex;
  std::condition_variable made_cv;  // a group made, or the queue failed
  size_t next = 0;
  std::vector<size_t> set_aside;
  size_t handed = 0;  // groups handed to done()
  bool failed = false;
  run_workers(workers, [&](int) {
    try {
      for (;;) {
        size_t t = 0;
        bool make = false;
        {
          std::unique_lock<std::mutex> lock(mutex);
          for (;;) {
            if (failed) return;
            const auto ready = std::find_if(set_aside.begin(), set_aside.end(),
                                            [&](size_t task) { return state[task / n]->made == Made::kYes; });
            if (ready != set_aside.end()) {
              t = *ready;
              set_aside.erase(ready);
              break;
            }
            if (next < groups * n) {
              t = next++;
              Group& group = *state[t / n];
              if (group.made == Made::kMaking) {
                set_aside.push_back(t);
                continue;
              }
              make = group.made == Made::kNot;
              if (make) group.made = Made::kMaking;
              break;
            }
            if (set_aside.empty()) return;
            made_cv.wait(lock);
          }
        }
        Group& group = *state[t / n];
        if (make) {
          PlanRequest request = make_request(t / n);
          request.threads = std::max(1, threads / workers);
          if (!request.item_cache) request.item_cache = std::make_shared<RingItemCostCache>();
          std::lock_guard<std::mutex> lock(mutex);
          group.request = std::move(request);
          group.made = Made::kYes;
          made_cv.notify_all();
        }
        const size_t c = n - 1 - t % n;  // the last clusters first (GPU counts ascending: the largest plans first)
        Plan plan = make_plan(profile, clusters[c], group.request);
        std::lock_guard<std::mutex> lock(mutex);
        group.plans[c] = std::move(plan);
        if (++group.finished == n) group.request = PlanRequest{};  // its mask and caches
        while (handed < groups && state[handed]->finished == n) {
          std::vector<Plan> plans;
          for (std::optional<Plan>& p : state[handed]->plans) plans.push_back(std::move(*p));
          state[handed]->plans.clear();
          done(handed, std::move(plans));
          ++handed;
        }
      }
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        failed = true;
      }
      made_cv.notify_all();
      throw;
    }
  });
}

}  // namespace lcab::perf
