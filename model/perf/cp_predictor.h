// Predictions of context-parallel runs: normalize a config, build its forward and/or backward schedules and
// simulate them with the cost models of one profile and cluster. Kernel cost models (and their caches of local
// masks) are kept per (implementation, pass, head dim, dtype), so many predictions share them: the planner
// predicts hundreds of configs with one CpPredictor.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "model/cp/cp_method.h"
#include "model/perf/cp_simulator.h"
#include "model/perf/ring_item_cache.h"
#include "model/record.h"

namespace lcab::perf {

/// The kernel inside a CP run.
struct KernelChoice {
  std::string impl = "lcab_flash";
  std::string dtype = "bf16";
};

struct PassPrediction {
  cp::Pass pass = cp::Pass::kForward;
  CpSimulation simulation;
  std::shared_ptr<const cp::Schedule> schedule;  ///< kept only when asked for (timelines)
};

struct CpPrediction {
  cp::CpConfig config;  ///< normalized: degrees, windows and sharding filled in
  std::vector<PassPrediction> passes;
  double time_us() const;             ///< summed over passes
  int64_t peak_mem_bytes() const;     ///< max over passes and ranks
  double exposed_comm_us() const;     ///< the slowest rank's exposed communication, summed over passes
  double imbalance() const;           ///< max over passes
  double flops() const;
};

/// What a prediction keeps. Summaries only (all three false, as the planner asks) lets methods of the ulysses/ring
/// engine be played by the lock-step simulator (lockstep_simulator.h): the same numbers without materializing
/// the schedule; anything more plays the materialized schedule with simulate().
struct PredictOptions {
  bool critical_path = true;
  bool keep_schedules = false;
  bool keep_timings = true;  ///< every op's and step's times (false: summaries only, as the planner wants)
  bool summaries_only() const { return !critical_path && !keep_schedules && !keep_timings; }
};

/// Which configs CpPredictor::bound bounds from a sample first (0: none of that kind).
struct BoundSampling {
  int64_t min_ring = 0;   ///< ulysses/ring configs of at least this many ring positions
  int64_t min_ranks = 0;  ///< allgather configs of at least this many ranks
};
/// A ring this long is bounded from a sample in the planner by default (PlanRequest::sampled_bounds): below it, the
/// whole item table costs little more than the sample (and usp / loongtrain candidates, simulated in most plans at
/// 128 GPUs and more, share it, so a sample of theirs would mostly be made in vain).
constexpr int64_t kSampledBoundMinRing = 256;
/// An allgather of this many ranks is bounded from a sample in the planner by default: its sample holds half of its
/// ranks or fewer (its items are each rank's rows against every key, and it is pruned in most plans).
constexpr int64_t kSampledBoundMinRanks = 32;
/// Ring positions a sampled bound costs: spread evenly over the ring, the first and the last among them.
constexpr int64_t kSampledBoundPositions = 16;
/// The positions a sampled bound of a ring of `ring` positions costs (ascending; all of them for a short ring).
std::vector<int64_t> sampled_bound_positions(int64_t ring);

/// A config before it is simulated (CpPredictor::bound): what the planner ranks candidates by and prunes with.
struct CpBound {
  cp::CpConfig config;              ///< normalized
  std::vector<cp::Pass> passes;
  std::vector<PassBound> pass_bounds;  ///< per pass, in the order of passes
  double time_lower_bound_us = 0;   ///< summed over passes; the prediction's time_us() is never below it
  int64_t peak_mem_bytes = 0;       ///< exactly the prediction's peak_mem_bytes()
  double work = 0;                  ///< how long its simulation takes, relatively: ranks played x steps x passes
  /// The time bound (time_lower_bound_us and the passes') is a sampled one (CpPredictor::bound's sampling), at most
  /// the full bound; false: the full bound.
  bool sampled = false;
};

class CpPredictor {
 public:
  /// The cluster's gpus bound every config's gpus; gpus_per_node comes from the cluster. Item-cost tables of
  /// lock-step predictions go to `items` (shared with other predictors, e.g. a plan's worker threads), or to a
  /// cache of this predictor's own when null.
  CpPredictor(HardwareProfile profile, ClusterShape cluster, std::shared_ptr<RingItemCostCache> items = nullptr);
  const HardwareProfile& profile() const { return profile_; }
  const ClusterShape& cluster() const { return cluster_; }

  /// Normalizes (throws lcab::Error with the method's message on an invalid config), builds and simulates.
  CpPrediction predict(const cp::CpConfig& config, const KernelChoice& kernel, const std::vector<cp::Pass>& passes,
                       PredictOptions options = {});
  /// Normalizes (throwing as predict() does) and bounds the config without simulating it: exact peak memory and a
  /// lower bound of its time (PassBound in cp_simulator.h), from the same item tables and schedules predict() uses.
  /// with_time_bound false: only the normalized config and the work estimate, without building schedules (time
  /// bound and peak memory 0) for methods that have no step program.
  /// sampling: a ulysses/ring config of at least sampling.min_ring ring positions is bounded from the items of
  /// sampled_bound_positions() only (sampled_bound_lockstep: a time not above the full bound, the exact peak memory),
  /// without its R^2-item table, and an allgather config of at least sampling.min_ranks ranks from those ranks' items
  /// only (sampled_built_bound), unless the sample cannot tell the peak memory exactly; CpBound::sampled says which
  /// bound was made. The default: always the full bound.
  CpBound bound(const cp::CpConfig& config, const KernelChoice& kernel, const std::vector<cp::Pass>& passes,
                bool with_time_bound = true, BoundSampling sampling = {});
  /// The kernel cost model of (impl, pass, head dim, dtype), made once.
  const KernelCostModel& kernel_model(const std::string& impl, cp::Pass pass, int64_t head_dim,
                                      const std::string& dtype);

 private:
  cp::CpConfig normalized(const cp::CpConfig& config) const;
  const CommCostModel& comm_model(int64_t gpus);
  /// Programs of the passes and their shared item table (methods of the ulysses/ring engine).
  struct Lockstep {
    std::vector<cp::UlyssesRingProgram> programs;
    std::shared_ptr<const RingItemCosts> items;
    const KernelCostModel* models[2] = {nullptr, nullptr};
  };
  /// A materialized schedule of one pass and, when its items were counted on the mask's tile grid
  /// (grid_schedule.h; on_grid allows it), their kernel costs.
  struct Built {
    std::shared_ptr<cp::Schedule> schedule;
    std::vector<std::vector<KernelCost>> item_costs;
    bool counted = false;
    /// The cost models of a simulation of this schedule (item_kernel_costs set when counted).
    CpCostModels models(const HardwareProfile& profile, const KernelCostModel& model, const CommCostModel& comm) const;
  };
  /// items_from: a schedule of the same config in another pass whose items a method with build_with_items reuses
  /// (cp::items_of) instead of resolving the mask again; null to resolve. resolve false: only the grid path (a
  /// Built without a schedule when it does not apply). sample: for the grid path, the ranks that get items
  /// (build_on_grid); null: all.
  Built build(const cp::CpMethod& method, const cp::CpConfig& config, cp::Pass pass, const KernelCostModel& model,
              bool on_grid, const cp::Schedule* items_from = nullptr, bool resolve = true,
              const std::vector<uint8_t>* sample = nullptr);
  /// costed: the ring positions of the item table (empty: all; a sample only for a bound).
  Lockstep lockstep(const cp::CpMethod& method, const cp::CpConfig& config, const KernelChoice& kernel,
                    const std::vector<cp::Pass>& passes, const std::vector<int64_t>& costed = {});
  /// The sampled bound of a ulysses/ring config into `b` (config, passes and work already
  /// set); false, `b` untouched, when the sample cannot give the exact peak memory of some pass.
  bool sampled_lockstep_bound(const cp::CpMethod& method, const KernelChoice& kernel, const std::vector<cp::Pass>& passes,
                              const CommCostModel& comm, CpBound& b);
  /// The schedules of `passes` of a normalized config of a method without a step program, as build() makes them
  /// pass by pass (on the grid where it applies, else the first pass resolved from the mask and the others from its
  /// items), except that a resolved schedule of a method with build_with_items keeps no slices: its items' kernel
  /// costs are computed once for every resolved pass (both passes' FULL-slice counts in one call) and travel as
  /// Built::item_costs. Made once per config, kernel and passes and kept (kMaxKeptBuilds, the oldest dropped), so
  /// that predict() simulates the schedules bound() built. Never for kept schedules (timelines need the slices).
  std::shared_ptr<const std::vector<Built>> built_passes(const cp::CpMethod& method, const cp::CpConfig& config,
                                                         const KernelChoice& kernel,
                                                         const std::vector<cp::Pass>& passes);
  /// The schedules built_passes() keeps, made afresh. sample: when given, only the ranks r with sample[r] set get
  /// their items, the others none (schedules for a lower bound; the method needs resolving_items), else all.
  std::vector<Built> make_built_passes(const cp::CpMethod& method, const cp::CpConfig& config,
                                       const KernelChoice& kernel, const std::vector<cp::Pass>& passes,
                                       const std::vector<uint8_t>* sample);
  /// The resolved passes of make_built_passes(): out[n] for every n in `resolved` (passes[n] not on the grid).
  void build_resolved(const cp::CpMethod& method, const cp::CpConfig& config, const KernelChoice& kernel,
                      const std::vector<cp::Pass>& passes, const std::vector<size_t>& resolved,
                      const std::vector<uint8_t>* sample, std::vector<Built>& out);
  /// The sampled bound of a config of a method with build_with_items and resolving_items (allgather) into `b`
  /// (config, passes and work already set): perf::bound() of schedules whose items are those of
  /// sampled_bound_positions() ranks only (a time not above the full bound: the other ranks' compute streams are
  /// left empty, every other op is the same), given when the sampled items reach the largest workspace an item can
  /// have (all heads over its rank's rows from the first that is not a pad to the last), so that its peak memory is
  /// exact; false, `b` untouched, otherwise.
  bool sampled_built_bound(const cp::CpMethod& method, const KernelChoice& kernel, const std::vector<cp::Pass>& passes,
                           const CommCostModel& comm, CpBound& b);
  struct KeptBuild {
    cp::CpConfig config;
    KernelChoice kernel;
    std::vector<cp::Pass> passes;
    std::shared_ptr<const std::vector<Built>> built;
  };
  static constexpr size_t kMaxKeptBuilds = 4;

  HardwareProfile profile_;
  ClusterShape cluster_;
  std::map<int64_t, std::unique_ptr<CommCostModel>> comm_;  // by config gpus (groups of the cluster's ranks)
  std::map<std::tuple<std::string, int, int64_t, std::string>, std::unique_ptr<KernelCostModel>> kernels_;
  std::shared_ptr<RingItemCostCache> items_;
  std::vector<KeptBuild> builds_;  // built_passes(), oldest first
  /// Throws where kernel.impl cannot run the config's mask (kernel_mask_error). The verdict on the last mask and
  /// implementation checked is kept, so that the candidates of one plan, which share their mask, check it once; a
  /// plan then skips every config with that reason.
  void check_mask_support(const cp::CpConfig& config, const KernelChoice& kernel);
  std::shared_ptr<const Mask> checked_mask_;
  std::string checked_impl_;
  std::string checked_error_;  ///< kernel_mask_error of the two ("" when runnable)
};

/// The key fields of a CP record (DESIGN.md section 5) for one pass of a config, as a measurement would write
/// them, so that lcab-check can join measured and predicted records.
RecordKey cp_record_key(const cp::CpConfig& config, const KernelChoice& kernel, cp::Pass pass);
/// The inverse direction: the attention shape a record key names (batch defaults to 1, kv_heads to heads; heads
/// and head_dim are required) and the CP config of a "cp" key on a cluster, with the workload's mask given by the
/// caller (who may cache it). Throws lcab::Error naming the missing key field.
AttentionShape attention_shape_of(const RecordKey& key);
cp::CpConfig cp_config_from_key(const RecordKey& key, const ClusterShape& cluster, std::shared_ptr<const Mask> mask);
/// A predicted "cp" record of one pass (status "ok"; time, tflops, flops, area, memory, breakdown).
Record cp_record(const CpPrediction& prediction, size_t pass_index, const KernelChoice& kernel,
                 const HardwareProfile& profile);
/// The record of one pass of a config the planner did not simulate (status "pruned", no time; peak memory, and
/// the pass's time lower bound as extra.time_lower_bound_ms).
Record cp_bound_record(const CpBound& bound, size_t pass_index, const KernelChoice& kernel,
                       const HardwareProfile& profile);

}  // namespace lcab::perf
