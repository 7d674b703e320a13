// lcab-measure kernel: every implementation x mask x seqlen x pass x shape, one record per point appended to
// --out as it finishes; rerunning with the same --out skips recorded points; a sticky CUDA error restarts the
// process, which resumes from --out.
#include <cuda_runtime_api.h>

#include <fstream>
#include <iostream>
#include <map>

#include "apps/cli/common_options.h"
#include "apps/lcab_measure/commands.h"
#include "apps/lcab_measure/summary.h"
#include "kernels/attention.h"
#include "kernels/cuda_check.h"
#include "measure/device_info.h"
#include "measure/kernel_bench.h"
#include "measure/progress.h"
#include "measure/recorded_keys.h"
#include "measure/trace_export.h"
#include "model/cli_values.h"
#include "model/error.h"
#include "model/mask_spec.h"

namespace lcab::measure_app {

namespace {

std::string outcome_text(const Record& r) {
  if (r.status != "ok") return r.status + ": " + r.error;
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(3);
  out << r.time_ms->median << " ms";
  if (r.tflops) {
    out.precision(1);
    out << ", " << *r.tflops << " TFLOP/s";
  }
  if (const std::optional<double> mhz = measure::record_sm_clock_mhz(r)) {
    out.precision(0);
    out << " at " << *mhz << " MHz";
  }
  return out.str();
}

void list_implementations(const kernels::AttentionRegistry& registry) {
  for (const std::string& name : registry.names()) {
    std::cout << "  " << name << "  " << registry.find(name).description() << "\n";
  }
}

}  // namespace

int run_kernel(const std::vector<std::string>& args, int argc, const char* const* argv) {
  cli::po::options_description desc("lcab-measure kernel");
  cli::WorkloadText text;
  cli::WorkloadOptions workload;
  measure::TimingOptions timing;
  std::string out_path, trace_path, csv_path;
  int device = 0;
  bool list = false;
  cli::add_workload_options(desc, text, workload);
  desc.add_options()
      ("reps", cli::po::value(&timing.reps)->default_value(timing.reps), "timed repetitions per point (L2 flushed before each)")
      ("warmup", cli::po::value(&timing.warmup)->default_value(timing.warmup), "untimed runs before the timed ones")
      ("out", cli::po::value(&out_path), "append records to FILE.jsonl; points already there are skipped")
      ("trace", cli::po::value(&trace_path), "write the CUPTI timeline of the timed repetitions as Chrome-trace JSON")
      ("csv", cli::po::value(&csv_path), "write the summary table as CSV to FILE ('-' for stdout)")
      ("device", cli::po::value(&device)->default_value(device), "CUDA device to measure on")
      ("list", cli::po::bool_switch(&list), "list the implementations and exit");
  if (!cli::parse_or_help(args, desc, "lcab-measure kernel --impl NAMES --mask SPECS --seqlen S,... [--out FILE]")) return 0;

  kernels::AttentionRegistry registry;
  kernels::register_all(registry);
  if (list) {
    list_implementations(registry);
    return 0;
  }
  cli::finish_workload_options(text, workload);
  const measure::KernelSweepAxes axes{workload.impls,    workload.masks,     workload.seqlens,
                                      workload.passes,   workload.heads,     workload.kv_heads,
                                      workload.head_dims, workload.dtypes,   workload.batch};
  const std::vector<measure::KernelPoint> points = measure::expand_kernel_sweep(axes);
  for (const std::string& impl : workload.impls) registry.find(impl);  // unknown names fail before any work
  for (const std::string& spec : workload.masks) {
    const MaskSpec parsed = parse_mask_spec(spec);
    if (parsed.name != "file") builtin_mask_patterns().find(parsed.name);
  }
  LCAB_CHECK(timing.reps > 0, "--reps must be positive, got " << timing.reps);
  LCAB_CHECK(timing.warmup >= 0, "--warmup must not be negative, got " << timing.warmup);

  measure::RecordedKeys recorded = measure::RecordedKeys::load(out_path, "kernel");
  for (const std::string& problem : recorded.problems()) std::cerr << "lcab-measure kernel: skipping " << problem << "\n";
  LCAB_CHECK(measure::cuda_device_count() > device, "--device " << device << ": this machine has "
                                                                 << measure::cuda_device_count() << " CUDA GPUs");
  LCAB_CUDA_CHECK(cudaSetDevice(device));
  const DeviceInfo device_info = measure::query_device_info(device);
  const nlohmann::json meta = make_meta(argc, argv);
  std::unique_ptr<RecordWriter> writer;
  if (!out_path.empty()) writer = std::make_unique<RecordWriter>(out_path);

  measure::L2Flusher flusher;
  measure::Stream stream;
  measure::Progress progress(static_cast<int>(points.size()));
  std::map<std::string, Record> results;  // key_id -> record of this run
  std::vector<measure::TraceActivity> trace;
  std::map<std::pair<std::string, int64_t>, Mask> masks;  // (spec, seqlen) for the current kv_heads
  int64_t masks_kv_heads = -1;
  int skipped = 0;
  bool poisoned = false;
  for (size_t n = 0; n < points.size() && !poisoned; ++n) {
    const measure::KernelPoint& point = points[n];
    if (recorded.contains(point.key())) {
      ++skipped;
      continue;
    }
    progress.start(static_cast<int>(n), point.label());
    measure::KernelBenchResult result;
    try {
      if (masks_kv_heads != point.kv_heads) {
        masks.clear();
        masks_kv_heads = point.kv_heads;
      }
      auto it = masks.find({point.mask, point.seqlen});
      if (it == masks.end()) {
        masks.clear();  // masks are outermost in the sweep: the previous one is done
        it = masks.emplace(std::make_pair(point.mask, point.seqlen), make_mask(point.mask, point.seqlen, point.kv_heads)).first;
      }
      result = measure::measure_kernel_point(registry.find(point.impl), point, it->second, timing, flusher,
                                             stream.get());
    } catch (const Error& e) {  // the mask could not be generated for this S
      result.measurement.status = "error";
      result.measurement.error = e.what();
    }
    const Record record = measure::make_kernel_record(point, result.measurement, device_info, meta);
    if (writer) writer->write(record);
    recorded.insert(point.key());
    results[key_id(point.key())] = record;
    if (!trace_path.empty()) trace.insert(trace.end(), result.activities.begin(), result.activities.end());
    progress.finish(static_cast<int>(n), point.label(), outcome_text(record));
    poisoned = result.context_poisoned;
  }
  if (skipped > 0) progress.note(std::to_string(skipped) + " points already recorded in " + out_path + ", skipped");
  if (!trace_path.empty()) {
    perf::write_chrome_trace_file(measure::timeline_from_activities(trace, [](uint32_t) { return 0; }), trace_path,
                                  {{"device", device_info.name}, {"command", "lcab-measure kernel"}});
  }
  if (poisoned) {
    if (writer) {
      progress.note("lcab-measure kernel: the CUDA context is unusable after that error; continuing in a fresh "
                    "process (points recorded in " + out_path + " are skipped)");
      writer.reset();
      restart_process(argc, argv);
    }
    std::cerr << "lcab-measure kernel: the CUDA context is unusable after that error; rerun with --out FILE so "
                 "that a fresh process can resume after the recorded points\n";
    return 3;
  }
  print_kernel_summary(points, results, out_path, csv_path);
  return 0;
}

}  // namespace lcab::measure_app
