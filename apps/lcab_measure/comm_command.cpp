// lcab-measure comm: NCCL operations over message sizes (-b/-e/-f as in nccl-tests) and group layouts, one
// process driving every GPU (a thread each) or one process per GPU under mpirun/srun/torchrun.
#include <cuda_runtime_api.h>

#include <iostream>

#include "apps/cli/common_options.h"
#include "apps/lcab_measure/commands.h"
#include "apps/lcab_measure/summary.h"
#include "measure/comm/comm_bench.h"
#include "measure/comm/nccl_bootstrap.h"
#include "measure/cupti_tracer.h"
#include "measure/device_info.h"
#include "measure/trace_export.h"
#include "model/cli_values.h"
#include "model/error.h"

namespace lcab::measure_app {

namespace {

// "trace.json" -> "trace.rank3.json" for one process per GPU.
std::string per_rank_path(const std::string& path, int rank) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  const std::string tag = ".rank" + std::to_string(rank);
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + tag;
  return path.substr(0, dot) + tag + path.substr(dot);
}

// nccl-tests' columns: size, time(us), algbw, busbw (GB/s), for each operation and group layout.
void print_comm_summary(const std::vector<measure::CommResult>& results, const std::string& csv_path) {
  Table table({"op", "group", "gpus", "size", "time(us)", "p20(us)", "p80(us)", "algbw(GB/s)", "busbw(GB/s)"});
  for (const measure::CommResult& r : results) {
    table.add_row({r.op, r.group, std::to_string(r.group_size) + "/" + std::to_string(r.world_size),
                   std::to_string(r.bytes), format_fixed(r.time_ms.median * 1e3, 2),
                   format_fixed(r.time_ms.p20 * 1e3, 2), format_fixed(r.time_ms.p80 * 1e3, 2),
                   format_fixed(r.algbw_gb_per_s, 2), format_fixed(r.busbw_gb_per_s, 2)});
  }
  print_table(table, csv_path);
}

}  // namespace

int run_comm(const std::vector<std::string>& args, int argc, const char* const* argv) {
  measure::disable_nvls_unless_set();
  cli::po::options_description desc("lcab-measure comm");
  std::string min_text = "1M", max_text = "1G", step_text = "0", ops_text, groups_text = "world", launch = "auto";
  std::string out_path, trace_path, csv_path, id_file;
  int64_t factor = 2;
  int gpus = 0;
  double id_timeout_s = 120;
  measure::CommSweepOptions options;
  measure::CollectiveRegistry registry;
  measure::register_all(registry);
  desc.add_options()
      ("minbytes,b", cli::po::value(&min_text)->default_value(min_text), "smallest size (nccl-tests' convention per op)")
      ("maxbytes,e", cli::po::value(&max_text)->default_value(max_text), "largest size")
      ("stepfactor,f", cli::po::value(&factor)->default_value(factor), "multiply the size by this each step")
      ("stepbytes,i", cli::po::value(&step_text)->default_value(step_text), "add this each step instead (with -f 0)")
      ("op", cli::po::value(&ops_text), ("operations (list); default all: " + join(registry.names())).c_str())
      ("group", cli::po::value(&groups_text)->default_value(groups_text), "group layout(s): world, contiguous:N, strided:N")
      ("iters,n", cli::po::value(&options.iters)->default_value(options.iters), "timed iterations per size")
      ("warmup,w", cli::po::value(&options.warmup)->default_value(options.warmup), "untimed iterations first")
      ("gpus", cli::po::value(&gpus)->default_value(gpus), "GPUs of this node to drive with a thread each (0: all)")
      ("launch", cli::po::value(&launch)->default_value(launch), "auto | threads | processes (auto: processes when a launcher set ranks)")
      ("nccl-id-file", cli::po::value(&id_file), "one process per GPU without MPI: file through which rank 0 shares the NCCL id")
      ("nccl-id-timeout", cli::po::value(&id_timeout_s)->default_value(id_timeout_s), "seconds ranks wait for the id file")
      ("out", cli::po::value(&out_path), "append records to FILE.jsonl")
      ("trace", cli::po::value(&trace_path), "write the CUPTI timeline (NCCL kernels) as Chrome-trace JSON")
      ("csv", cli::po::value(&csv_path), "write the table as CSV to FILE ('-' for stdout)");
  if (!cli::parse_or_help(args, desc, "lcab-measure comm [-b 1M -e 1G -f 2] [--op OPS] [--group LAYOUTS]")) return 0;

  options.ops = ops_text.empty() ? registry.names() : split_list(ops_text);
  for (const std::string& op : options.ops) registry.find(op);
  options.sizes = measure::message_sizes(measure::parse_byte_size(min_text), measure::parse_byte_size(max_text),
                                         factor, measure::parse_byte_size(step_text));
  options.groups.clear();
  for (const std::string& g : split_list(groups_text)) options.groups.push_back(measure::GroupLayout::parse(g));
  LCAB_CHECK(launch == "auto" || launch == "threads" || launch == "processes",
             "--launch '" << launch << "' is not valid; valid: auto, threads, processes");

  const measure::RankEnvironment env = measure::detect_rank_environment();
  const bool processes = launch == "processes" || (launch == "auto" && env.world_size > 1);
  LCAB_CHECK(!processes || env.launcher != "none",
             "--launch processes needs a launcher's rank variables (mpirun, srun or torchrun)");
  const int visible = measure::cuda_device_count();
  LCAB_CHECK(visible > 0, "no CUDA GPU is visible");
  std::vector<int> devices;
  if (!processes) {
    LCAB_CHECK(gpus >= 0 && gpus <= visible, "--gpus " << gpus << ": this node has " << visible << " GPUs");
    for (int d = 0; d < (gpus ? gpus : visible); ++d) devices.push_back(d);
  }
  const int world = processes ? env.world_size : static_cast<int>(devices.size());
  for (const measure::GroupLayout& layout : options.groups) layout.validate(world);
  const int rank = processes ? env.rank : 0;
  const DeviceInfo device_info = measure::query_device_info(processes ? env.local_rank : devices[0]);
  const nlohmann::json meta = make_meta(argc, argv);

  measure::CuptiActivityTracer tracer;
  if (!trace_path.empty()) tracer.start();
  const std::vector<measure::CommResult> results =
      processes ? measure::run_comm_sweep_process(registry, options, env, id_file, id_timeout_s)
                : measure::run_comm_sweep_threads(registry, options, devices);
  if (!trace_path.empty()) {
    cudaDeviceSynchronize();
    const std::vector<measure::TraceActivity> activities = tracer.stop();
    const std::string path = processes && world > 1 ? per_rank_path(trace_path, rank) : trace_path;
    auto rank_of_device = [&](uint32_t device) {
      if (processes) return rank;
      for (size_t r = 0; r < devices.size(); ++r) {
        if (devices[r] == static_cast<int>(device)) return static_cast<int>(r);
      }
      return static_cast<int>(device);
    };
    perf::write_chrome_trace_file(measure::timeline_from_activities(activities, rank_of_device), path,
                                  {{"device", device_info.name}, {"command", "lcab-measure comm"}});
  }
  if (rank != 0) return 0;
  if (!out_path.empty()) {
    RecordWriter writer(out_path);
    for (const measure::CommResult& r : results) {
      writer.write(measure::make_comm_record(r, device_info, meta, processes ? env.launcher : "threads"));
    }
  }
  print_comm_summary(results, csv_path);
  return 0;
}

}  // namespace lcab::measure_app
