// The planner (DESIGN.md section 6): enumerate CP methods x degrees x placements x window counts for a cluster,
// predict each, mark what does not fit in memory, rank by time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/perf/cp_predictor.h"

namespace lcab::perf {

struct PlanRequest {
  cp::Workload workload;
  KernelChoice kernel;
  std::vector<cp::Pass> passes{cp::Pass::kForward, cp::Pass::kBackward};
  std::vector<std::string> methods;  ///< empty: every registered method
  /// loongtrain window counts to try; empty: the powers of two W with 1 < W < R and W <= 8.
  std::vector<int64_t> windows;
  /// Device memory a rank may use for attention; 0: the profile's GPU memory.
  int64_t memory_limit_bytes = 0;
  /// One config per method instead of every degree, placement and window count: usp and loongtrain with the
  /// largest Ulysses degree that fits in a node (R >= 2), ulysses_intra, loongtrain with the fewest windows > 1.
  bool one_config_per_method = false;
  /// Worker threads (each with its own predictor and caches); 0: the machine's hardware threads.
  int threads = 0;
  /// Candidates are simulated in increasing order of their time lower bound (CpPredictor::bound); with prune, once
  /// the next one's bound is at least the time of every config simulated so far (among those that fit, and among
  /// those that do not, separately), it and all after it are not simulated: each is slower than every simulated
  /// one, so the ranking of the simulated ones is exact and the pruned ones rank after them by their bound.
  bool prune = true;
  /// With prune, candidates of ulysses/ring methods with at least sampled_bounds.min_ring ring positions, and
  /// allgather candidates of at least sampled_bounds.min_ranks ranks, are first bounded from a sample of positions
  /// or ranks (CpPredictor::bound's sampling: not above the full bound, exact peak memory) and get their full bound
  /// (the R^2-item table, every rank's items) only when the pruning rule needs it (PruningOrder in planner.cpp): the
  /// same configs are simulated, with the same results, as with every bound full; a config pruned on its sampled
  /// bound keeps that, lower, bound. {} (zeros): every candidate's full bound first.
  BoundSampling sampled_bounds{kSampledBoundMinRing, kSampledBoundMinRanks};
  /// Item-cost tables and tile grids to use and keep (ring_item_cache.h); null: a cache of this plan's own. A
  /// sweep passes one cache to the plans of every GPU count of a mask, which then make the mask's grids once.
  std::shared_ptr<RingItemCostCache> item_cache;
};

struct PlanEntry {
  CpPrediction prediction;  ///< pruned: the normalized config only, no passes
  bool fits = true;         ///< peak memory per rank within the limit (known exactly without simulating)
  bool pruned = false;      ///< not simulated (see PlanRequest::prune): only bound.time_lower_bound_us is known
  CpBound bound;            ///< time lower bound (the full one, or a sampled one for a pruned entry) and exact peak
                            ///< memory
};

struct SkippedConfig {
  cp::CpConfig config;
  std::string reason;  ///< the method's message: what is invalid and what would be valid
};

struct Plan {
  /// Those that fit, then those that do not; in each, the simulated ones fastest first, then the pruned ones by
  /// their lower bound.
  std::vector<PlanEntry> entries;
  std::vector<SkippedConfig> skipped;
  int64_t memory_limit_bytes = 0;
  double elapsed_s = 0;
  size_t pruned() const;  ///< entries not simulated
};

/// The configs a plan considers, before normalization (degrees, windows, placement set).
std::vector<cp::CpConfig> plan_candidates(const PlanRequest& request, const ClusterShape& cluster);

/// Predicts every candidate. Invalid candidates are listed in skipped, not thrown.
Plan make_plan(const HardwareProfile& profile, const ClusterShape& cluster, const PlanRequest& request);

/// Plans of one request on several clusters (a sweep's GPU counts for one mask and length), in the order given:
/// each equal to make_plan's. The plans share request.item_cache (one is made when it is null) and run
/// request.threads at a time (0: the machine's hardware threads), each single-threaded while there are at least as
/// many plans left as threads (plans of 5 candidates leave threads idle while their longest one runs); the last
/// clusters start first (GPU counts ascending: the largest plans first).
std::vector<Plan> make_plans(const HardwareProfile& profile, const std::vector<ClusterShape>& clusters,
                             PlanRequest request);

/// The plans of `groups` requests (a sweep's masks and lengths), each on every cluster of `clusters`, as one queue
/// over `threads` workers (0: the machine's hardware threads): the groups in order, each one's plans as
/// make_plans() orders and threads them; a worker that finds no plan of a group left starts on the next group's,
/// so that no worker idles while another finishes a group's last plan, and a worker that draws a plan of a group
/// whose request another worker is still making sets it aside and draws the next, so that none idles while a large
/// mask is made either (those set aside are planned first once their group's request is made; make_request may
/// then run for two groups at once). make_request(g) makes group g's request (its workload, usually a new mask)
/// when the first of its plans is drawn, once; the request is released when the group's plans are done. done(g, plans) is called for every group in order (g = 0, 1, ...), as soon as that
/// group and all before it are done, one call at a time, with plans equal to make_plans()'s for its request. A
/// plan that throws stops the queue and the exception is rethrown; the groups done before it were handed over.
void make_plan_groups(const HardwareProfile& profile, const std::vector<ClusterShape>& clusters, size_t groups,
                      int threads, const std::function<PlanRequest(size_t)>& make_request,
                      const std::function<void(size_t, std::vector<Plan>)>& done);

/// "ring", "ulysses 8", "usp 8x16 ulysses_intra", "loongtrain 8x16 w4 ring_intra": one line per config.
std::string describe_config(const cp::CpConfig& config);

}  // namespace lcab::perf
