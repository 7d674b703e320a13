#include "model/perf/cp_predictor.h"

#include <algorithm>

#include "model/cp/schedule_items.h"
#include "model/error.h"
#include "model/perf/grid_schedule.h"
#include "model/perf/kernel_mask_support.h"
#include "model/perf/lockstep_simulator.h"

namespace lcab::perf {

double CpPrediction::time_us() const {
  double t = 0;
  for (const PassPrediction& p : passes) t += p.simulation.time_us;
  return t;
}
int64_t CpPrediction::peak_mem_bytes() const {
  int64_t m = 0;
  for (const PassPrediction& p : passes) m = std::max(m, p.simulation.peak_mem_bytes());
  return m;
}
double CpPrediction::exposed_comm_us() const {
  double t = 0;
  for (const PassPrediction& p : passes) t += p.simulation.ranks[p.simulation.slowest_rank].exposed_comm_us;
  return t;
}
double CpPrediction::imbalance() const {
  double m = 1;
  for (const PassPrediction& p : passes) m = std::max(m, p.simulation.imbalance());
  return m;
}
double CpPrediction::flops() const {
  double f = 0;
  for (const PassPrediction& p : passes) f += p.simulation.flops();
  return f;
}

CpPredictor::CpPredictor(HardwareProfile profile, ClusterShape cluster, std::shared_ptr<RingItemCostCache> items)
    : profile_(std::move(profile)),
      cluster_(cluster),
      items_(items ? std::move(items) : std::make_shared<RingItemCostCache>()) {
  validate_cluster(cluster_);
}

const KernelCostModel& CpPredictor::kernel_model(const std::string& impl, cp::Pass pass, int64_t head_dim,
                                                 const std::string& dtype) {
  auto key = std::make_tuple(impl, static_cast<int>(pass), head_dim, dtype);
  auto it = kernels_.find(key);
  if (it == kernels_.end()) {
    const KernelParams& params = profile_.kernel(impl, cp::to_string(pass), head_dim, dtype);
    it = kernels_.emplace(key, std::make_unique<KernelCostModel>(profile_, params)).first;
  }
  return *it->second;
}

cp::CpConfig CpPredictor::normalized(const cp::CpConfig& config) const {
  LCAB_CHECK(config.gpus <= cluster_.gpus, "config uses " << config.gpus << " GPUs but the cluster has "
                                                          << cluster_.gpus);
  cp::CpConfig wanted = config;
  wanted.gpus_per_node = cluster_.gpus_per_node;
  return cp::normalize_config(wanted);
}

const CommCostModel& CpPredictor::comm_model(int64_t gpus) {
  auto it = comm_.find(gpus);
  if (it == comm_.end())
    it = comm_.emplace(gpus, std::make_unique<CommCostModel>(profile_, ClusterShape{gpus, cluster_.gpus_per_node}))
             .first;
  return *it->second;
}

std::vector<int64_t> sampled_bound_positions(int64_t ring) {
  std::vector<int64_t> out;
  if (ring <= kSampledBoundPositions) {
    for (int64_t p = 0; p < ring; ++p) out.push_back(p);
    return out;
  }
  for (int64_t n = 0; n < kSampledBoundPositions; ++n) out.push_back(n * (ring - 1) / (kSampledBoundPositions - 1));
  return out;
}

CpPredictor::Lockstep CpPredictor::lockstep(const cp::CpMethod& method, const cp::CpConfig& config,
                                            const KernelChoice& kernel, const std::vector<cp::Pass>& passes,
                                            const std::vector<int64_t>& costed) {
  Lockstep l;
  for (cp::Pass pass : passes) {
    l.programs.push_back(method.program(config, pass));
    l.models[static_cast<int>(pass)] = &kernel_model(kernel.impl, pass, config.workload.head_dim, kernel.dtype);
  }
  l.items = items_->get(l.programs.front(), kernel.impl + "/" + kernel.dtype, l.models[0], l.models[1],
                        profile_.executor_pass_rate(), costed);
  return l;
}

CpCostModels CpPredictor::Built::models(const HardwareProfile& profile, const KernelCostModel& model,
                                        const CommCostModel& comm) const {
  CpCostModels m = cost_models(profile, model, comm);
  if (counted) m.item_kernel_costs = &item_costs;
  return m;
}

CpPredictor::Built CpPredictor::build(const cp::CpMethod& method, const cp::CpConfig& config, cp::Pass pass,
                                      const KernelCostModel& model, bool on_grid, const cp::Schedule* items_from,
                                      bool resolve, const std::vector<uint8_t>* sample) {
  Built b;
  if (on_grid && method.build_with_items) {
    std::optional<GridSchedule> counted = build_on_grid(method, cp::normalize_config(config), pass, model,
                                                        items_->grid(config.workload.mask, model), sample);
    if (counted) {
      b.schedule = std::make_shared<cp::Schedule>(std::move(counted->schedule));
      b.item_costs = std::move(counted->item_costs);
      b.counted = true;
      return b;
    }
  }
  if (!resolve) return b;
  if (items_from && method.build_with_items) {
    b.schedule = std::make_shared<cp::Schedule>(
        method.build_with_items(cp::normalize_config(config), pass, cp::items_of(*items_from)));
    return b;
  }
  b.schedule = std::make_shared<cp::Schedule>(cp::build_schedule(config, pass));
  return b;
}

namespace {

// A maker giving `make`'s items for the ranks r with sample[r] set and none for the others (it is called for the
// sampled ranks only, in the builder's order).
cp::ComputeItemMaker items_of_ranks(cp::ComputeItemMaker make, const std::vector<uint8_t>& sample) {
  return [make = std::move(make), &sample](int rank, int step, const cp::TokenMap& q_map,
                                            const cp::TokenMap& k_map) -> std::optional<cp::ComputeItem> {
    if (!sample[static_cast<size_t>(rank)]) return std::nullopt;
    return make(rank, step, q_map, k_map);
  };
}

bool same_config(const cp::CpConfig& a, const cp::CpConfig& b) {
  const cp::Workload& x = a.workload;
  const cp::Workload& y = b.workload;
  return a.method == b.method && a.gpus == b.gpus && a.gpus_per_node == b.gpus_per_node &&
         a.ulysses_degree == b.ulysses_degree && a.ring_degree == b.ring_degree && a.windows == b.windows &&
         a.placement == b.placement && a.sharding == b.sharding &&
         a.min_document_chunk_tokens == b.min_document_chunk_tokens &&
         a.overlap_dkv_home_hop == b.overlap_dkv_home_hop && x.mask == y.mask && x.batch == y.batch &&
         x.heads == y.heads && x.kv_heads == y.kv_heads && x.head_dim == y.head_dim &&
         x.dtype_bytes == y.dtype_bytes && x.grad_accum_bytes == y.grad_accum_bytes;
}

}  // namespace

std::shared_ptr<const std::vector<CpPredictor::Built>> CpPredictor::built_passes(const cp::CpMethod& method,
                                                                                 const cp::CpConfig& config,
                                                                                 const KernelChoice& kernel,
                                                                                 const std::vector<cp::Pass>& passes) {
  for (const KeptBuild& k : builds_)
    if (same_config(k.config, config) && k.kernel.impl == kernel.impl && k.kernel.dtype == kernel.dtype &&
        k.passes == passes)
      return k.built;
  auto out = std::make_shared<std::vector<Built>>(make_built_passes(method, config, kernel, passes, nullptr));
  builds_.push_back({config, kernel, passes, out});
  if (builds_.size() > kMaxKeptBuilds) builds_.erase(builds_.begin());
  return out;
}

std::vector<CpPredictor::Built> CpPredictor::make_built_passes(const cp::CpMethod& method, const cp::CpConfig& config,
                                                               const KernelChoice& kernel,
                                                               const std::vector<cp::Pass>& passes,
                                                               const std::vector<uint8_t>* sample) {
  std::vector<Built> out(passes.size());
  std::vector<size_t> resolved;  // passes not on the grid
  for (size_t n = 0; n < passes.size(); ++n) {
    const KernelCostModel& model = kernel_model(kernel.impl, passes[n], config.workload.head_dim, kernel.dtype);
    Built b = build(method, config, passes[n], model, true, nullptr, /*resolve=*/false, sample);
    if (b.schedule) out[n] = std::move(b);
    else resolved.push_back(n);
  }
  if (!resolved.empty()) build_resolved(method, config, kernel, passes, resolved, sample, out);
  return out;
}

void CpPredictor::build_resolved(const cp::CpMethod& method, const cp::CpConfig& config, const KernelChoice& kernel,
                                 const std::vector<cp::Pass>& passes, const std::vector<size_t>& resolved,
                                 const std::vector<uint8_t>* sample, std::vector<Built>& out) {
  LCAB_CHECK(!sample || method.resolving_items, "method " << method.name << " cannot resolve some ranks' items only");
  if (!method.build_with_items) {  // every pass resolved from the mask, as build() makes it
    for (size_t n : resolved) out[n].schedule = std::make_shared<cp::Schedule>(cp::build_schedule(config, passes[n]));
    return;
  }
  // The first resolved pass from the mask; its items costed for every resolved pass at once, then dropping their
  // slices; the other passes built from its items (cp::items_of), their costs looked up by rank and step.
  std::array<const KernelCostModel*, 2> models{nullptr, nullptr};
  for (size_t n : resolved)
    models[static_cast<int>(passes[n])] = &kernel_model(kernel.impl, passes[n], config.workload.head_dim, kernel.dtype);
  const size_t first = resolved.front();
  auto schedule = std::make_shared<cp::Schedule>(
      sample ? method.build_with_items(cp::normalize_config(config), passes[first],
                                       items_of_ranks(method.resolving_items(cp::normalize_config(config)), *sample))
             : cp::build_schedule(config, passes[first]));
  std::array<std::vector<std::vector<KernelCost>>, 2> costs = item_costs_of(*schedule, models);
  for (cp::RankSchedule& rank : schedule->ranks)
    for (cp::ComputeItem& item : rank.items) std::vector<std::vector<Slice>>().swap(item.slices);
  const std::vector<std::vector<int>> index_at = cp::item_index_by_step(*schedule);
  const cp::ComputeItemMaker from_first = cp::items_of(*schedule);
  for (size_t n : resolved) {
    if (n == first) continue;
    const std::vector<std::vector<KernelCost>>& pass_costs = costs[static_cast<int>(passes[n])];
    Built& b = out[n];
    b.item_costs.resize(schedule->ranks.size());
    const cp::ComputeItemMaker make = [&](int rank, int step, const cp::TokenMap& q_map,
                                          const cp::TokenMap& k_map) -> std::optional<cp::ComputeItem> {
      std::optional<cp::ComputeItem> item = from_first(rank, step, q_map, k_map);
      if (item) {
        const int index = index_at[static_cast<size_t>(rank)][static_cast<size_t>(step)];
        b.item_costs[static_cast<size_t>(rank)].push_back(
            pass_costs[static_cast<size_t>(rank)][static_cast<size_t>(index)]);
      }
      return item;
    };
    b.schedule = std::make_shared<cp::Schedule>(method.build_with_items(cp::normalize_config(config), passes[n], make));
    b.counted = true;
  }
  out[first].schedule = std::move(schedule);
  out[first].item_costs = std::move(costs[static_cast<int>(passes[first])]);
  out[first].counted = true;
}

// An implementation that cannot run the mask runs no config of it: Ulysses gives every rank the whole mask for its
// heads, and the other methods cut their ranks' calls from it (model/perf/kernel_mask_support.h).
void CpPredictor::check_mask_support(const cp::CpConfig& config, const KernelChoice& kernel) {
  if (!config.workload.mask) return;
  if (config.workload.mask != checked_mask_ || kernel.impl != checked_impl_) {
    checked_error_ = kernel_mask_error(kernel.impl, *config.workload.mask);
    checked_mask_ = config.workload.mask;
    checked_impl_ = kernel.impl;
  }
  LCAB_CHECK(checked_error_.empty(), checked_error_);
}

CpPrediction CpPredictor::predict(const cp::CpConfig& config, const KernelChoice& kernel,
                                  const std::vector<cp::Pass>& passes, PredictOptions options) {
  LCAB_CHECK(!passes.empty(), "a CP prediction needs at least one pass (fwd, bwd)");
  check_mask_support(config, kernel);
  CpPrediction prediction;
  prediction.config = normalized(config);
  const CommCostModel& comm = comm_model(prediction.config.gpus);
  const cp::CpMethod& method = cp::builtin_cp_methods().find(prediction.config.method);
  if (options.summaries_only() && method.program) {
    // Lock-step: the schedule is played as its program emits it; item costs come from a table shared by every
    // candidate with the same sharding and heads (both passes in one table).
    const Lockstep l = lockstep(method, prediction.config, kernel, passes);
    for (size_t n = 0; n < passes.size(); ++n) {
      PassPrediction p;
      p.pass = passes[n];
      p.simulation = simulate_lockstep(l.programs[n], *l.items,
                                       cost_models(profile_, *l.models[static_cast<int>(passes[n])], comm));
      prediction.passes.push_back(std::move(p));
    }
    return prediction;
  }
  if (!options.keep_schedules) {  // the schedules bound() built for this config, when it did
    const std::shared_ptr<const std::vector<Built>> built = built_passes(method, prediction.config, kernel, passes);
    for (size_t n = 0; n < passes.size(); ++n) {
      const KernelCostModel& model =
          kernel_model(kernel.impl, passes[n], prediction.config.workload.head_dim, kernel.dtype);
      PassPrediction p;
      p.pass = passes[n];
      p.simulation = simulate(*(*built)[n].schedule, (*built)[n].models(profile_, model, comm),
                              SimulationOptions{options.critical_path, options.keep_timings});
      prediction.passes.push_back(std::move(p));
    }
    return prediction;
  }
  std::shared_ptr<const cp::Schedule> resolved;  // the last pass's schedule resolved from the mask, for its items
  for (cp::Pass pass : passes) {
    const KernelCostModel& model = kernel_model(kernel.impl, pass, prediction.config.workload.head_dim, kernel.dtype);
    // Kept schedules (timelines) keep their items' slices.
    Built built = build(method, prediction.config, pass, model, false, resolved.get());
    std::shared_ptr<cp::Schedule> schedule = std::move(built.schedule);
    if (!built.counted) resolved = schedule;
    PassPrediction p;
    p.pass = pass;
    p.simulation = simulate(*schedule, built.models(profile_, model, comm),
                            SimulationOptions{options.critical_path, options.keep_timings});
    if (options.keep_schedules) p.schedule = std::move(schedule);
    prediction.passes.push_back(std::move(p));
  }
  return prediction;
}

namespace {

// How long a lock-step play of `program` takes, relatively: ranks played x steps.
double lockstep_work(const cp::UlyssesRingProgram& program, const RingItemCosts& items, const CommCostModel& comm,
                     int64_t gpus) {
  const double played = ulysses_members_equivalent(program, items, comm) ? static_cast<double>(program.layout().ring)
                                                                         : static_cast<double>(gpus);
  return played * program.num_steps();
}

// Sets b's pass bounds, total time bound and peak memory from the passes' bounds.
void set_pass_bounds(CpBound& b, std::vector<PassBound> pass_bounds) {
  b.time_lower_bound_us = 0;
  b.peak_mem_bytes = 0;
  for (PassBound& p : pass_bounds) {
    // A bound sums kernel times in another order than the play adds them up: a margin far above rounding keeps
    // it below the simulated time also when a rank computes back to back.
    p.time_lower_bound_us *= 1.0 - 1e-9;
    b.time_lower_bound_us += p.time_lower_bound_us;
    b.peak_mem_bytes = std::max(b.peak_mem_bytes, p.peak_mem_bytes);
  }
  b.pass_bounds = std::move(pass_bounds);
}

}  // namespace

bool CpPredictor::sampled_lockstep_bound(const cp::CpMethod& method, const KernelChoice& kernel,
                                         const std::vector<cp::Pass>& passes, const CommCostModel& comm, CpBound& b) {
  const Lockstep l = lockstep(method, b.config, kernel, passes, sampled_bound_positions(b.config.ring_degree));
  std::vector<PassBound> pass_bounds;
  double work = 0;  // the table's groups set it, not its positions: the sample's is the whole table's
  for (size_t n = 0; n < passes.size(); ++n) {
    const std::optional<PassBound> p = sampled_bound_lockstep(
        l.programs[n], *l.items, cost_models(profile_, *l.models[static_cast<int>(passes[n])], comm));
    if (!p) return false;
    pass_bounds.push_back(*p);
    work += lockstep_work(l.programs[n], *l.items, comm, b.config.gpus);
  }
  set_pass_bounds(b, std::move(pass_bounds));
  b.work = work;
  b.sampled = true;
  return true;
}

namespace {

// The largest workspace an item of a materialized schedule of a method with build_with_items can have in the pass
// of `model`: its items compute every head over rows of their rank's input shard (ComputeItemMaker), which have
// cells only from its first row that is not a pad to its last.
int64_t largest_item_workspace(const cp::Schedule& schedule, const KernelCostModel& model) {
  int64_t rows = 0;
  for (int r = 0; r < schedule.gpus(); ++r)
    rows = std::max(rows, schedule.token_maps[static_cast<size_t>(r)].real_row_span());
  cp::ComputeItem all_heads;  // what the shape reads: the heads
  all_heads.q_heads = {0, schedule.config.workload.heads};
  all_heads.kv_heads = {0, schedule.config.workload.kv_heads};
  return attention_workspace_bytes(item_shape(all_heads, schedule.config.workload), rows, rows, model.pass());
}

// The ranks of a sampled bound of a config of `gpus` ranks, as flags.
std::vector<uint8_t> sampled_ranks(int64_t gpus) {
  std::vector<uint8_t> sample(static_cast<size_t>(gpus), 0);
  for (const int64_t r : sampled_bound_positions(gpus)) sample[static_cast<size_t>(r)] = 1;
  return sample;
}

}  // namespace

bool CpPredictor::sampled_built_bound(const cp::CpMethod& method, const KernelChoice& kernel,
                                      const std::vector<cp::Pass>& passes, const CommCostModel& comm, CpBound& b) {
  const std::vector<uint8_t> sample = sampled_ranks(b.config.gpus);
  const std::vector<Built> built = make_built_passes(method, b.config, kernel, passes, &sample);
  std::vector<PassBound> pass_bounds;
  for (size_t n = 0; n < passes.size(); ++n) {
    const KernelCostModel& model = kernel_model(kernel.impl, passes[n], b.config.workload.head_dim, kernel.dtype);
    const cp::Schedule& schedule = *built[n].schedule;
    const PassBound p = perf::bound(schedule, built[n].models(profile_, model, comm));
    if (p.peak_mem_bytes != schedule.peak_buffer_bytes() + largest_item_workspace(schedule, model)) return false;
    pass_bounds.push_back(p);
  }
  set_pass_bounds(b, std::move(pass_bounds));
  b.sampled = true;
  return true;
}

CpBound CpPredictor::bound(const cp::CpConfig& config, const KernelChoice& kernel, const std::vector<cp::Pass>& passes,
                           bool with_time_bound, BoundSampling sampling) {
  LCAB_CHECK(!passes.empty(), "a CP bound needs at least one pass (fwd, bwd)");
  check_mask_support(config, kernel);
  CpBound b;
  b.config = normalized(config);
  b.passes = passes;
  const CommCostModel& comm = comm_model(b.config.gpus);
  const cp::CpMethod& method = cp::builtin_cp_methods().find(b.config.method);
  std::vector<PassBound> pass_bounds;
  if (method.program) {
    if (sampling.min_ring > 0 && b.config.ring_degree >= sampling.min_ring &&
        sampled_lockstep_bound(method, kernel, passes, comm, b))
      return b;
    const Lockstep l = lockstep(method, b.config, kernel, passes);
    for (size_t n = 0; n < passes.size(); ++n) {
      const cp::UlyssesRingProgram& program = l.programs[n];
      pass_bounds.push_back(bound_lockstep(program, *l.items,
                                           cost_models(profile_, *l.models[static_cast<int>(passes[n])], comm)));
      b.work += lockstep_work(program, *l.items, comm, b.config.gpus);
    }
  } else {
    b.work = static_cast<double>(b.config.gpus * passes.size());
    if (!with_time_bound) return b;
    if (sampling.min_ranks > 0 && b.config.gpus >= sampling.min_ranks && method.build_with_items &&
        method.resolving_items && sampled_built_bound(method, kernel, passes, comm, b))
      return b;
    const std::shared_ptr<const std::vector<Built>> built = built_passes(method, b.config, kernel, passes);
    for (size_t n = 0; n < passes.size(); ++n) {
      const KernelCostModel& model = kernel_model(kernel.impl, passes[n], b.config.workload.head_dim, kernel.dtype);
      pass_bounds.push_back(perf::bound(*(*built)[n].schedule, (*built)[n].models(profile_, model, comm)));
    }
  }
  set_pass_bounds(b, std::move(pass_bounds));
  return b;
}

RecordKey cp_record_key(const cp::CpConfig& c, const KernelChoice& kernel, cp::Pass pass) {
  RecordKey key;
  key.impl = kernel.impl;
  key.pass = std::string(cp::to_string(pass));
  const Mask& mask = *c.workload.mask;
  key.mask = mask.info().spec;
  key.seqlen = mask.seqlen();
  key.batch = c.workload.batch;
  key.heads = c.workload.heads;
  key.kv_heads = c.workload.kv_heads;
  key.head_dim = c.workload.head_dim;
  key.dtype = kernel.dtype;
  key.method = c.method;
  key.gpus = c.gpus;
  key.gpus_per_node = c.gpus_per_node;
  // As lcab-measure cp writes them (normalized degrees, windows always), so that the keys join.
  key.degrees = {{"ulysses", c.ulysses_degree}, {"ring", c.ring_degree}, {"windows", c.windows}};
  if (c.method == "usp" || c.method == "loongtrain") key.placement = std::string(cp::to_string(c.placement));
  return key;
}

Record cp_record(const CpPrediction& prediction, size_t pass_index, const KernelChoice& kernel,
                 const HardwareProfile& profile) {
  const PassPrediction& p = prediction.passes.at(pass_index);
  const CpSimulation& sim = p.simulation;
  Record r;
  r.source = "predicted";
  r.kind = "cp";
  r.key = cp_record_key(prediction.config, kernel, p.pass);
  const double ms = sim.time_us * 1e-3;
  r.time_ms = TimeStatsMs{ms, ms, ms};
  r.flops = sim.flops();
  r.tflops = sim.time_us > 0 ? sim.flops() / sim.time_us * 1e-6 : 0;
  r.area = prediction.config.workload.mask->mean_area();
  r.peak_mem_bytes = sim.peak_mem_bytes();
  Breakdown b;
  const RankSummary& slow = sim.ranks[sim.slowest_rank];
  b.compute_ms = slow.compute_us * 1e-3;
  b.comm_ms = slow.comm_us * 1e-3;
  b.exposed_comm_ms = slow.exposed_comm_us * 1e-3;
  for (const RankSummary& rank : sim.ranks) b.per_rank_ms.push_back(rank.end_us * 1e-3);
  r.breakdown = b;
  r.device = DeviceInfo{profile.gpu.name, profile.sms(), ""};
  r.extra["profile"] = profile.name;
  r.extra["imbalance"] = sim.imbalance();
  r.extra["comm_hidden_fraction"] = sim.comm_hidden_fraction();
  r.extra["critical_path"] = {{"ops", sim.critical_path.size()},
                              {"compute_ms", sim.critical_compute_us * 1e-3},
                              {"comm_ms", sim.critical_comm_us * 1e-3}};
  r.extra["sharding"] = std::string(cp::to_string(prediction.config.sharding));
  r.extra["dkv_home_overlap"] = prediction.config.overlap_dkv_home_hop;
  return r;
}

Record cp_bound_record(const CpBound& bound, size_t pass_index, const KernelChoice& kernel,
                       const HardwareProfile& profile) {
  const PassBound& p = bound.pass_bounds.at(pass_index);
  Record r;
  r.source = "predicted";
  r.kind = "cp";
  r.key = cp_record_key(bound.config, kernel, bound.passes.at(pass_index));
  r.status = "pruned";
  r.error = "not simulated: its time lower bound is above the time of every simulated config of the plan";
  r.area = bound.config.workload.mask->mean_area();
  r.peak_mem_bytes = p.peak_mem_bytes;
  r.device = DeviceInfo{profile.gpu.name, profile.sms(), ""};
  r.extra["profile"] = profile.name;
  r.extra["time_lower_bound_ms"] = p.time_lower_bound_us * 1e-3;
  r.extra["sharding"] = std::string(cp::to_string(bound.config.sharding));
  return r;
}

AttentionShape attention_shape_of(const RecordKey& key) {
  LCAB_CHECK(key.heads.has_value(), "record key " << key_id(key) << " has no heads");
  LCAB_CHECK(key.head_dim.has_value(), "record key " << key_id(key) << " has no head_dim");
  AttentionShape shape;
  shape.batch = key.batch.value_or(1);
  shape.heads = *key.heads;
  shape.kv_heads = key.kv_heads.value_or(shape.heads);
  shape.head_dim = *key.head_dim;
  shape.dtype_bytes = 2;  // bf16 and fp16, the only dtypes of the schema
  return shape;
}

cp::CpConfig cp_config_from_key(const RecordKey& key, const ClusterShape& cluster, std::shared_ptr<const Mask> mask) {
  LCAB_CHECK(!key.method.empty(), "cp record key " << key_id(key) << " has no method");
  LCAB_CHECK(mask != nullptr, "cp_config_from_key needs the workload's mask");
  cp::CpConfig config;
  config.method = key.method;
  config.gpus = cluster.gpus;
  config.gpus_per_node = cluster.gpus_per_node;
  auto degree = [&key](const char* name) {
    const auto it = key.degrees.find(name);
    return it == key.degrees.end() ? int64_t{0} : it->second;
  };
  config.ulysses_degree = degree("ulysses");
  config.ring_degree = degree("ring");
  if (degree("windows") > 0) config.windows = degree("windows");
  if (!key.placement.empty()) config.placement = cp::parse_placement(key.placement);
  const AttentionShape shape = attention_shape_of(key);
  config.workload.mask = std::move(mask);
  config.workload.batch = shape.batch;
  config.workload.heads = shape.heads;
  config.workload.kv_heads = shape.kv_heads;
  config.workload.head_dim = shape.head_dim;
  config.workload.dtype_bytes = shape.dtype_bytes;
  return config;
}

}  // namespace lcab::perf
