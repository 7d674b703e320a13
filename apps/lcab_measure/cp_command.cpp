// lcab-measure cp: context-parallel runs on real GPUs through the CP executor (DESIGN.md sections 4, 5, 8).
//
// For every method x mask x sequence length x degrees x placement x pass: the slowest rank's time (median over
// repetitions, a barrier before each), per-rank compute / communication / exposed communication from the
// executor's per-op event timelines of all ranks (model/perf/comm_overlap.h: a transfer starts when every party
// has arrived), imbalance (max / mean compute), peak device memory per rank; one record of
// kind "cp" each. Launch: a thread per GPU (--gpus N, this machine's GPUs 0..N-1), or, under mpirun, srun or
// torchrun, a process per GPU (one rank here; rank 0 writes the records).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/cli/common_options.h"
#include "apps/lcab_measure/commands.h"
#include "cp/executor.h"
#include "cp/launch.h"
#include "kernels/attention.h"
#include "measure/device_info.h"
#include "measure/gpu_timing.h"
#include "measure/kernel_bench.h"
#include "measure/random_fill.h"
#include "measure/time_stats.h"
#include "model/cli_values.h"
#include "model/cp/cp_method.h"
#include "model/error.h"
#include "model/mask_spec.h"
#include "model/perf/comm_overlap.h"
#include "model/perf/timeline.h"
#include "model/record.h"

namespace lcab::measure_app {
namespace {

namespace po = boost::program_options;

struct CpOptions {
  cli::WorkloadOptions workload;
  std::vector<std::string> methods{"ring"};
  int gpus = 0;  ///< 0: every visible GPU (threads) or the launcher's world
  int64_t gpus_per_node = 8;
  std::vector<int64_t> ulysses{0}, ring{0}, windows{1};
  std::vector<std::string> placements{"ulysses_intra"};
  std::string sharding = "auto";
  int warmup = 3;
  int reps = 10;
  std::string out_path;
  std::string trace_path;
  std::string nccl_id_file;
  bool baseline = false;
  bool no_dkv_home_overlap = false;  ///< CpConfig::overlap_dkv_home_hop off
};

/// One CP configuration and pass of the sweep.
struct CpPoint {
  cp::CpConfig config;  ///< normalized (or as given when normalization failed)
  cp::Pass pass = cp::Pass::kForward;
  std::string mask_spec;
  std::string invalid;  ///< why the config is impossible ("" when valid)
};

bool takes_degrees(const std::string& method) { return method == "usp" || method == "loongtrain"; }

std::vector<CpPoint> expand_points(const CpOptions& o, int world) {
  std::vector<CpPoint> points;
  std::map<std::string, bool> seen;
  for (const std::string& spec : o.workload.masks)
    for (int64_t S : o.workload.seqlens)
      for (const std::string& method : o.methods)
        for (int64_t U : takes_degrees(method) ? o.ulysses : std::vector<int64_t>{0})
          for (int64_t R : takes_degrees(method) ? o.ring : std::vector<int64_t>{0})
            for (int64_t W : method == "loongtrain" ? o.windows : std::vector<int64_t>{1})
              for (const std::string& placement :
                   takes_degrees(method) ? o.placements : std::vector<std::string>{"ulysses_intra"})
                for (const std::string& pass : o.workload.passes) {
                  CpPoint p;
                  p.mask_spec = spec;
                  p.pass = cp::parse_pass(pass);
                  cp::CpConfig& c = p.config;
                  c.method = method;
                  c.gpus = world;
                  c.gpus_per_node = o.gpus_per_node;
                  c.ulysses_degree = U;
                  c.ring_degree = R;
                  c.windows = W;
                  c.placement = cp::parse_placement(placement);
                  c.sharding = cp::parse_sharding(o.sharding);
                  c.overlap_dkv_home_hop = !o.no_dkv_home_overlap;
                  c.workload.heads = o.workload.heads.front();
                  c.workload.kv_heads = o.workload.kv_heads.front();
                  c.workload.head_dim = o.workload.head_dims.front();
                  c.workload.dtype_bytes = 2;
                  c.workload.mask = std::make_shared<const Mask>(make_mask(spec, S, c.workload.kv_heads));
                  try {
                    c = cp::normalize_config(c);
                  } catch (const Error& e) {
                    p.invalid = e.what();
                  }
                  std::ostringstream id;
                  id << spec << '|' << S << '|' << method << '|' << c.ulysses_degree << 'x' << c.ring_degree << 'x'
                     << c.windows << '|' << cp::to_string(c.placement) << '|' << pass;
                  if (seen[id.str()]) continue;  // a 1-D method given several degree lists
                  seen[id.str()] = true;
                  points.push_back(std::move(p));
                }
  return points;
}

RecordKey key_of(const CpPoint& p, const CpOptions& o) {
  const cp::CpConfig& c = p.config;
  RecordKey key;
  key.impl = o.workload.impls.front();
  key.pass = std::string(cp::to_string(p.pass));
  key.mask = p.mask_spec;
  key.seqlen = c.workload.seqlen();
  key.batch = 1;
  key.heads = c.workload.heads;
  key.kv_heads = c.workload.kv_heads;
  key.head_dim = c.workload.head_dim;
  key.dtype = o.workload.dtypes.front();
  key.method = c.method;
  key.gpus = c.gpus;
  key.gpus_per_node = c.gpus_per_node;
  key.degrees = {{"ulysses", c.ulysses_degree}, {"ring", c.ring_degree}, {"windows", c.windows}};
  if (takes_degrees(c.method)) key.placement = std::string(cp::to_string(c.placement));
  return key;
}

double pass_flops(const CpPoint& p) {
  const cp::Workload& w = p.config.workload;
  const double fwd = 4.0 * w.mask->mean_area() * static_cast<double>(w.heads * w.head_dim);
  return p.pass == cp::Pass::kForward ? fwd : 2.5 * fwd;
}

/// What every rank measured for one point (gathered over ranks).
struct PointResult {
  std::string status = "ok";
  std::string error;
  std::vector<double> slowest_ms;  ///< per repetition
  std::vector<double> per_rank_ms, per_rank_compute_ms, per_rank_comm_ms, per_rank_exposed_ms;
  std::vector<double> per_rank_peak_mem;
  std::string sharding;
};

Record make_record(const CpPoint& p, const CpOptions& o, const PointResult& r, const DeviceInfo& device,
                   const nlohmann::json& meta, const std::string& launch) {
  Record rec;
  rec.kind = "cp";
  rec.key = key_of(p, o);
  rec.device = device;
  rec.meta = meta;
  rec.area = p.config.workload.mask->mean_area();
  rec.flops = pass_flops(p);
  rec.status = r.status;
  rec.error = r.error;
  if (r.status != "ok") return rec;
  rec.time_ms = measure::summarize_times(r.slowest_ms);
  const double median_ms = rec.time_ms->median;
  rec.tflops = *rec.flops / (median_ms * 1e9);
  const size_t slowest =
      static_cast<size_t>(std::max_element(r.per_rank_ms.begin(), r.per_rank_ms.end()) - r.per_rank_ms.begin());
  Breakdown b;
  b.compute_ms = r.per_rank_compute_ms[slowest];
  b.comm_ms = r.per_rank_comm_ms[slowest];
  b.exposed_comm_ms = r.per_rank_exposed_ms[slowest];
  b.per_rank_ms = r.per_rank_ms;
  rec.breakdown = b;
  rec.peak_mem_bytes = static_cast<int64_t>(*std::max_element(r.per_rank_peak_mem.begin(), r.per_rank_peak_mem.end()));
  const double mean_compute = std::accumulate(r.per_rank_compute_ms.begin(), r.per_rank_compute_ms.end(), 0.0) /
                              static_cast<double>(r.per_rank_compute_ms.size());
  const double max_compute = *std::max_element(r.per_rank_compute_ms.begin(), r.per_rank_compute_ms.end());
  std::vector<perf::CommOverlap> overlap;
  for (size_t i = 0; i < r.per_rank_comm_ms.size(); ++i)
    overlap.push_back({r.per_rank_compute_ms[i], r.per_rank_comm_ms[i], r.per_rank_exposed_ms[i]});
  rec.extra["tflops_per_gpu"] = *rec.tflops / static_cast<double>(p.config.gpus);
  rec.extra["imbalance"] = mean_compute > 0 ? max_compute / mean_compute : 1.0;
  rec.extra["comm_hidden_fraction"] = perf::hidden_fraction(overlap);
  rec.extra["per_rank_compute_ms"] = r.per_rank_compute_ms;
  rec.extra["per_rank_comm_ms"] = r.per_rank_comm_ms;
  rec.extra["per_rank_exposed_comm_ms"] = r.per_rank_exposed_ms;
  rec.extra["per_rank_peak_mem_bytes"] = r.per_rank_peak_mem;
  rec.extra["reps"] = o.reps;
  rec.extra["warmup"] = o.warmup;
  rec.extra["sharding"] = r.sharding;
  rec.extra["dkv_home_overlap"] = p.config.overlap_dkv_home_hop;
  rec.extra["launch"] = launch;
  rec.extra["timing"] = "slowest rank per repetition (CUDA events from the pass's first to last op, a barrier "
                        "before each); breakdown from per-op events of the slowest rank, transfers from the "
                        "latest arrival of their parties (every rank's events, clocks aligned at the pass start)";
  return rec;
}

measure::FillType fill_type_of(cp::ElementType t) {
  return t == cp::ElementType::kFp16 ? measure::FillType::kFp16 : measure::FillType::kBf16;
}

/// Shared by the rank threads of one process: the points, the outputs (rank 0 writes), the trace.
struct SweepContext {
  const CpOptions* options = nullptr;
  std::vector<CpPoint> points;
  const kernels::AttentionImpl* attention = nullptr;
  RecordWriter* writer = nullptr;
  DeviceInfo device;
  nlohmann::json meta;
  std::string launch;
  std::mutex trace_mutex;
  std::map<size_t, perf::Timeline> traces;  ///< by point
  std::vector<Record> records;              ///< rank 0's, for the table
};

perf::TimelineEvent event_of(const cp::RankSchedule& ops, const cp::OpInterval& op, int rank) {
  perf::TimelineEvent e;
  e.rank = rank;
  e.stream = std::string(cp::to_string(op.stream));
  std::ostringstream name;
  name << "step " << op.step << ' ' << cp::to_string(op.kind);
  const cp::Op& o = ops.ops[op.op];
  if (cp::is_communication(op.kind)) {
    const cp::CommOp& c = ops.comms[o.index];
    name << ' ' << c.what;
    if (c.peer >= 0) name << (op.kind == cp::OpKind::kSend ? " -> " : " <- ") << c.peer;
    e.args["bytes"] = c.chunk_bytes;
  } else if (op.kind == cp::OpKind::kCompute) {
    e.args["pairs"] = ops.items[o.index].pairs;
  }
  e.name = name.str();
  e.start_us = op.start_ms * 1e3;
  e.duration_us = (op.end_ms - op.start_ms) * 1e3;
  return e;
}

// Every rank's timeline of the last pass, on every rank (the ranks' op intervals, padded to the longest op list).
std::vector<std::vector<cp::OpInterval>> gather_timelines(const cp::Schedule& schedule,
                                                          const std::vector<cp::OpInterval>& mine,
                                                          cp::RankComms& comms, measure::Stream& stream) {
  size_t longest = 0;
  for (const cp::RankSchedule& r : schedule.ranks) longest = std::max(longest, r.ops.size());
  std::vector<double> flat(2 * longest, 0.0);
  for (const cp::OpInterval& op : mine) {
    flat[2 * static_cast<size_t>(op.op)] = op.start_ms;
    flat[2 * static_cast<size_t>(op.op) + 1] = op.end_ms;
  }
  const std::vector<double> all = comms.gather_all(flat, stream.get());
  std::vector<std::vector<cp::OpInterval>> timelines(schedule.ranks.size());
  for (size_t r = 0; r < schedule.ranks.size(); ++r) {
    const cp::RankSchedule& rs = schedule.ranks[r];
    for (size_t k = 0; k < rs.ops.size(); ++k) {
      const double* at = all.data() + r * 2 * longest + 2 * k;
      timelines[r].push_back({static_cast<int>(k), rs.ops[k].kind, rs.ops[k].stream, rs.ops[k].step, at[0], at[1]});
    }
  }
  return timelines;
}

// One point on one rank; every rank calls it for every point in the same order.
void run_point_on_rank(SweepContext& ctx, size_t index, cp::RankComms& comms, measure::Stream& stream) {
  const CpOptions& o = *ctx.options;
  const CpPoint& p = ctx.points[index];
  PointResult result;
  if (!p.invalid.empty()) {
    result.status = "unsupported";
    result.error = p.invalid;
  } else {
    const int64_t baseline_bytes = measure::device_memory_used_bytes();
    std::unique_ptr<cp::RankMemory> memory;
    std::unique_ptr<cp::RankExecutor> forward, backward;
    cp::Schedule fwd_schedule, bwd_schedule;
    std::string local_error;
    cp::ExecutorOptions exec_options;
    exec_options.record_timeline = true;
    try {
      fwd_schedule = cp::build_schedule(p.config, cp::Pass::kForward);
      if (p.pass == cp::Pass::kBackward) bwd_schedule = cp::build_schedule(p.config, cp::Pass::kBackward);
      result.sharding = std::string(cp::to_string(fwd_schedule.sharding));
      memory = std::make_unique<cp::RankMemory>(comms.device(),
                                                cp::element_type_of(kernels::parse_dtype(o.workload.dtypes.front())));
      forward = std::make_unique<cp::RankExecutor>(fwd_schedule, comms, *memory, *ctx.attention, exec_options);
      if (p.pass == cp::Pass::kBackward)
        backward = std::make_unique<cp::RankExecutor>(bwd_schedule, comms, *memory, *ctx.attention, exec_options);
      uint64_t seed = 1000 * static_cast<uint64_t>(comms.rank()) + 1;
      for (const char* name : {"q", "kv", "dout"}) {
        if (!memory->contains(name)) continue;
        cp::DeviceBuffer& b = memory->find(name);
        measure::fill_random(b.primary, b.desc.tensors * b.tensor_elements(), fill_type_of(b.type), seed++, 1.0f,
                             stream.get());
      }
    } catch (const kernels::OutOfMemory& e) {
      local_error = std::string("oom: ") + e.what();
    } catch (const std::exception& e) {
      local_error = e.what();
    }
    // Every rank learns whether any rank failed before anyone enters the timed collectives.
    const bool any_failed = comms.max_over_ranks(local_error.empty() ? 0.0 : 1.0, stream.get()) > 0;
    if (any_failed) {
      const bool oom = local_error.rfind("oom", 0) == 0 || local_error.find("out of memory") != std::string::npos;
      result.status = oom ? "oom" : "error";
      result.error = local_error.empty() ? "another rank failed" : local_error;
    } else {
      cp::RankExecutor& timed = backward ? *backward : *forward;
      if (backward) {
        forward->enqueue(stream.get());
        forward->last_pass_ms();
      }
      std::vector<double> mine, compute, comm, exposed;
      std::vector<cp::OpInterval> last_timeline;
      for (int rep = 0; rep < o.warmup + o.reps; ++rep) {
        comms.barrier(stream.get());
        timed.enqueue(stream.get());
        const double ms = timed.last_pass_ms();
        const double slowest = comms.max_over_ranks(ms, stream.get());
        if (rep < o.warmup) continue;
        last_timeline = timed.last_timeline();
        const cp::TimelineSplit split = cp::split_timeline(
            timed.schedule(), gather_timelines(timed.schedule(), last_timeline, comms, stream), comms.rank());
        mine.push_back(ms);
        compute.push_back(split.compute_ms);
        comm.push_back(split.comm_ms);
        exposed.push_back(split.exposed_comm_ms);
        result.slowest_ms.push_back(slowest);
      }
      const double peak = static_cast<double>(measure::device_memory_used_bytes() - baseline_bytes);
      result.per_rank_ms = comms.gather_all(measure::percentile(mine, 50), stream.get());
      result.per_rank_compute_ms = comms.gather_all(measure::percentile(compute, 50), stream.get());
      result.per_rank_comm_ms = comms.gather_all(measure::percentile(comm, 50), stream.get());
      result.per_rank_exposed_ms = comms.gather_all(measure::percentile(exposed, 50), stream.get());
      result.per_rank_peak_mem = comms.gather_all(peak, stream.get());
      if (!o.trace_path.empty()) {
        std::lock_guard<std::mutex> lock(ctx.trace_mutex);
        perf::Timeline& t = ctx.traces[index];
        for (const cp::OpInterval& op : last_timeline)
          t.events.push_back(event_of(timed.schedule().ranks[comms.rank()], op, comms.rank()));
      }
    }
  }
  if (comms.rank() != 0) return;
  Record rec = make_record(p, o, result, ctx.device, ctx.meta, ctx.launch);
  if (ctx.writer) ctx.writer->write(rec);
  ctx.records.push_back(rec);
  std::fprintf(stderr, "cp %s %s %s S=%lld P=%lld U=%lld R=%lld W=%lld: %s\n", p.config.method.c_str(),
               std::string(cp::to_string(p.pass)).c_str(), p.mask_spec.c_str(),
               static_cast<long long>(p.config.workload.seqlen()), static_cast<long long>(p.config.gpus),
               static_cast<long long>(p.config.ulysses_degree), static_cast<long long>(p.config.ring_degree),
               static_cast<long long>(p.config.windows),
               rec.status == "ok" ? (std::to_string(rec.time_ms->median) + " ms").c_str() : rec.error.c_str());
}

void run_sweep_on_rank(SweepContext& ctx, cp::RankComms& comms) {
  measure::Stream stream;
  for (size_t i = 0; i < ctx.points.size(); ++i) run_point_on_rank(ctx, i, comms, stream);
}

/// Single-GPU lcab_flash on the whole sequence (the same total work), on GPU 0: records of kind "kernel".
void run_baselines(SweepContext& ctx, const CpOptions& o) {
  cp::set_current_device(0);
  measure::Stream stream;
  measure::L2Flusher flusher;
  measure::TimingOptions timing;
  timing.warmup = o.warmup;
  timing.reps = o.reps;
  std::map<std::string, bool> done;
  for (const CpPoint& p : ctx.points) {
    measure::KernelPoint k;
    k.impl = o.workload.impls.front();
    k.mask = p.mask_spec;
    k.seqlen = p.config.workload.seqlen();
    k.pass = std::string(cp::to_string(p.pass));
    k.heads = p.config.workload.heads;
    k.kv_heads = p.config.workload.kv_heads;
    k.head_dim = p.config.workload.head_dim;
    k.dtype = o.workload.dtypes.front();
    if (done[k.label()]) continue;
    done[k.label()] = true;
    const measure::KernelBenchResult r =
        measure::measure_kernel_point(*ctx.attention, k, *p.config.workload.mask, timing, flusher, stream.get());
    Record rec = measure::make_kernel_record(k, r.measurement, ctx.device, ctx.meta);
    if (ctx.writer) ctx.writer->write(rec);
    ctx.records.push_back(rec);
    std::fprintf(stderr, "baseline %s: %s\n", k.label().c_str(),
                 rec.status == "ok" ? (std::to_string(rec.time_ms->median) + " ms").c_str() : rec.error.c_str());
    if (r.context_poisoned) LCAB_THROW("a sticky CUDA error in the single-GPU baseline: " << r.measurement.error);
  }
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

void print_table(const std::vector<Record>& records) {
  std::cout << "| kind | method | degrees | mask | seqlen | pass | status | time (ms) | TFLOP/s per GPU | compute (ms) "
               "| comm (ms) | exposed comm (ms) | imbalance | peak mem (GiB) |\n"
            << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Record& r : records) {
    const RecordKey& k = r.key;
    std::string degrees;
    for (const auto& [name, value] : k.degrees) degrees += (degrees.empty() ? "" : " ") + name + "=" + std::to_string(value);
    if (!k.placement.empty()) degrees += " " + k.placement;
    std::cout << "| " << r.kind << " | " << (k.method.empty() ? k.impl : k.method) << " | " << degrees << " | "
              << k.mask << " | " << k.seqlen.value_or(0) << " | " << k.pass << " | " << r.status << " | ";
    if (r.status != "ok") {
      std::cout << "| | | | | | |\n";
      continue;
    }
    const double gpus = static_cast<double>(k.gpus.value_or(1));
    std::cout << fixed(r.time_ms->median, 3) << " | " << fixed(r.tflops.value_or(0) / gpus, 1) << " | ";
    if (r.breakdown) {
      std::cout << fixed(r.breakdown->compute_ms.value_or(0), 3) << " | " << fixed(r.breakdown->comm_ms.value_or(0), 3)
                << " | " << fixed(r.breakdown->exposed_comm_ms.value_or(0), 3) << " | "
                << fixed(r.extra.value("imbalance", 1.0), 3) << " | ";
    } else {
      std::cout << "| | | | ";
    }
    std::cout << fixed(static_cast<double>(r.peak_mem_bytes.value_or(0)) / (1 << 30), 2) << " |\n";
  }
}

}  // namespace

int run_cp(const std::vector<std::string>& args, int argc, const char* const* argv) {
  CpOptions o;
  cli::WorkloadText text;
  std::string methods = "ring", ulysses = "0", ring = "0", windows = "1", placements = "ulysses_intra";
  po::options_description desc("lcab-measure cp options");
  cli::add_workload_options(desc, text, o.workload);
  desc.add_options()
      ("method", po::value(&methods)->default_value(methods), "CP method(s): ring, allgather, ulysses, usp, loongtrain")
      ("gpus", po::value(&o.gpus)->default_value(0), "GPUs (threads, one per GPU); 0: all visible, or the launcher's world")
      ("gpus-per-node", po::value(&o.gpus_per_node)->default_value(o.gpus_per_node), "GPUs per node")
      ("ulysses", po::value(&ulysses)->default_value(ulysses), "Ulysses degree(s) for usp/loongtrain (0: from --ring)")
      ("ring", po::value(&ring)->default_value(ring), "ring degree(s) for usp/loongtrain (0: from --ulysses)")
      ("windows", po::value(&windows)->default_value(windows), "window count(s) for loongtrain")
      ("placement", po::value(&placements)->default_value(placements), "ulysses_intra and/or ring_intra")
      ("sharding", po::value(&o.sharding)->default_value(o.sharding), "auto, contiguous, zigzag, zigzag_documents")
      ("warmup", po::value(&o.warmup)->default_value(o.warmup), "untimed passes first")
      ("reps", po::value(&o.reps)->default_value(o.reps), "timed passes (median reported)")
      ("out", po::value(&o.out_path), "append records to FILE.jsonl ('-' for stdout)")
      ("trace", po::value(&o.trace_path), "Chrome-trace JSON of the last repetition (all ranks; FILE.N.json per point "
                                          "when there are several)")
      ("baseline", po::bool_switch(&o.baseline), "also measure single-GPU --impl on the whole sequence (GPU 0)")
      ("no-dkv-home-overlap", po::bool_switch(&o.no_dkv_home_overlap),
       "ring/usp/loongtrain backward: compute the whole own KV block first, so the final dK,dV hop follows the "
       "last compute (the schedule before the own-block tail)")
      ("nccl-id-file", po::value(&o.nccl_id_file), "shared file for the NCCL id under srun/torchrun without MPI");
  const std::string usage =
      "lcab-measure cp --method ring,ulysses --mask causal --seqlen 64k,128k --pass fwd,bwd [--gpus N] ...";
  if (!cli::parse_or_help(args, desc, usage)) return 0;
  cli::finish_workload_options(text, o.workload);
  o.methods = split_list(methods);
  o.ulysses = parse_token_list(ulysses);
  o.ring = parse_token_list(ring);
  o.windows = parse_token_list(windows);
  o.placements = split_list(placements);
  LCAB_CHECK(o.reps >= 1 && o.warmup >= 0, "--reps must be >= 1 and --warmup >= 0");
  LCAB_CHECK(o.workload.heads.size() == 1 && o.workload.kv_heads.size() == 1 && o.workload.head_dims.size() == 1 &&
                 o.workload.dtypes.size() == 1 && o.workload.impls.size() == 1,
             "lcab-measure cp takes one --heads, --kv-heads, --head-dim, --dtype and --impl per run");
  LCAB_CHECK(o.workload.batch == 1, "lcab-measure cp runs batch 1 (one long sequence split over GPUs)");

  kernels::AttentionRegistry registry;
  kernels::register_all(registry);
  SweepContext ctx;
  ctx.options = &o;
  ctx.attention = &registry.find(o.workload.impls.front());
  ctx.meta = make_meta(argc, argv);
  const std::optional<cp::LaunchEnvironment> launcher = cp::detect_launcher();
  const int world = launcher ? launcher->world_size : (o.gpus > 0 ? o.gpus : cp::visible_gpu_count());
  LCAB_CHECK(world >= 1, "no GPU visible");
  ctx.points = expand_points(o, world);
  const bool writes = !launcher || launcher->rank == 0;
  std::unique_ptr<RecordWriter> writer;
  if (writes && !o.out_path.empty()) writer = std::make_unique<RecordWriter>(o.out_path);
  ctx.writer = writer.get();
  ctx.device = measure::query_device_info(launcher ? launcher->local_rank : 0);
  if (o.baseline && writes) run_baselines(ctx, o);

  if (launcher) {
    ctx.launch = launcher->launcher;
    std::unique_ptr<cp::RankComms> comms = cp::connect_process(*launcher, o.nccl_id_file);
    run_sweep_on_rank(ctx, *comms);
  } else {
    ctx.launch = "threads";
    cp::run_thread_per_gpu(world, [&](cp::RankComms& comms) { run_sweep_on_rank(ctx, comms); });
  }
  if (!o.trace_path.empty()) {
    for (auto& [index, timeline] : ctx.traces) {
      std::string path = o.trace_path;
      if (ctx.points.size() > 1) path += "." + std::to_string(index) + ".json";
      if (launcher) path += ".rank" + std::to_string(launcher->rank);
      perf::write_chrome_trace_file(timeline, path, nlohmann::json{{"point", to_json(key_of(ctx.points[index], o))}});
    }
  }
  if (writes) print_table(ctx.records);
  return 0;
}

}  // namespace lcab::measure_app
