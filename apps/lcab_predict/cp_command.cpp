// lcab-predict cp: simulate one CP configuration (method, degrees, placement, windows) per pass: time, compute,
// communication and exposed communication of the slowest rank, the share of communication hidden over all ranks
// (model/perf/comm_overlap.h), imbalance, memory; --steps prints every step of every rank; --trace writes the
// predicted timeline as Chrome-trace JSON.
#include <iostream>

#include "apps/cli/common_options.h"
#include "apps/lcab_predict/commands.h"
#include "apps/lcab_predict/predict_common.h"
#include "model/cli_values.h"
#include "model/error.h"
#include "model/perf/cp_predictor.h"
#include "model/perf/planner.h"

namespace lcab::predict {

int run_cp(const std::vector<std::string>& args, int argc, const char* const* argv) {
  cli::po::options_description desc("lcab-predict cp");
  cli::WorkloadText text;
  text.passes = "fwd,bwd";
  text.seqlens = "128k";
  cli::WorkloadOptions opts;
  cli::ClusterText cluster_text;
  cli::ClusterOptions cluster;
  cli::OutputOptions out;
  std::string methods_text = "ring";
  int64_t ulysses = 0, ring = 0, windows = 0;
  std::string placement = "ulysses_intra", sharding = "auto", trace_path;
  bool steps = false, no_dkv_home_overlap = false;
  cli::add_workload_options(desc, text, opts);
  cli::add_cluster_options(desc, cluster_text, cluster);
  desc.add_options()
      ("method", cli::po::value(&methods_text)->default_value(methods_text), "CP method(s): ring, allgather, ulysses, usp, loongtrain")
      ("ulysses", cli::po::value(&ulysses)->default_value(0), "Ulysses degree U (usp, loongtrain; 0: the method's default)")
      ("ring", cli::po::value(&ring)->default_value(0), "ring degree R (usp, loongtrain; 0: P / U)")
      ("windows", cli::po::value(&windows)->default_value(0), "loongtrain windows W (divides R; 0: 1)")
      ("placement", cli::po::value(&placement)->default_value(placement), "ulysses_intra or ring_intra")
      ("sharding", cli::po::value(&sharding)->default_value(sharding), "auto, contiguous, zigzag, zigzag_documents")
      ("steps", cli::po::bool_switch(&steps), "also print the start and end of every step of every rank")
      ("no-dkv-home-overlap", cli::po::bool_switch(&no_dkv_home_overlap),
       "ring/usp/loongtrain backward: compute the whole own KV block first, so the final dK,dV hop follows the "
       "last compute (the schedule before the own-block tail)")
      ("trace", cli::po::value(&trace_path), "write the predicted timeline as Chrome-trace JSON to FILE");
  cli::add_output_options(desc, out);
  if (!cli::parse_or_help(args, desc, "lcab-predict cp --method NAME --gpus P [--ulysses U --ring R --windows W "
                                      "--placement X] --mask SPEC --seqlen S"))
    return 0;
  cli::finish_workload_options(text, opts);
  cli::finish_cluster_options(cluster_text, cluster);
  const std::vector<cp::Pass> passes = parse_passes(opts.passes);
  const perf::HardwareProfile profile = perf::resolve_profile(cluster.profile);
  LCAB_CHECK(opts.impls.size() == 1 && opts.dtypes.size() == 1 && opts.heads.size() == 1 &&
                 opts.kv_heads.size() == 1 && opts.head_dims.size() == 1,
             "lcab-predict cp takes one --impl, --dtype, --heads, --kv-heads and --head-dim; lists are for "
             "--mask, --seqlen, --gpus and --method");
  const perf::KernelChoice kernel{opts.impls[0], opts.dtypes[0]};
  RecordSink sink(out, argc, argv);
  perf::Timeline timeline;
  nlohmann::json trace_meta = {{"source", "predicted"}, {"profile", profile.name}, {"configs", nlohmann::json::array()}};
  double trace_offset_us = 0;

  Table table({"method", "config", "gpus", "mask", "seqlen", "pass", "time ms", "TFLOP/s/GPU", "compute ms",
               "comm ms", "exposed comm ms", "comm hidden", "imbalance", "critical compute ms", "critical comm ms", "peak mem"});
  Table step_table({"config", "pass", "rank", "step", "start ms", "end ms"});
  for (const std::string& spec : opts.masks) {
    for (int64_t seqlen : opts.seqlens) {
      const cp::Workload workload =
          make_workload(spec, seqlen, opts, opts.heads[0], opts.kv_heads[0], opts.head_dims[0]);
      for (int64_t gpus : cluster.gpus) {
        perf::CpPredictor predictor(profile, {gpus, cluster.gpus_per_node});
        for (const std::string& method : split_list(methods_text)) {
          cp::CpConfig config;
          config.method = method;
          config.gpus = gpus;
          config.ulysses_degree = ulysses;
          config.ring_degree = ring;
          config.windows = windows;
          config.placement = cp::parse_placement(placement);
          config.sharding = cp::parse_sharding(sharding);
          config.overlap_dkv_home_hop = !no_dkv_home_overlap;
          config.workload = workload;
          const perf::CpPrediction p =
              predictor.predict(config, kernel, passes, perf::PredictOptions{true, !trace_path.empty()});
          for (size_t n = 0; n < p.passes.size(); ++n) {
            const perf::CpSimulation& sim = p.passes[n].simulation;
            const perf::RankSummary& slow = sim.ranks[sim.slowest_rank];
            const std::string pass(cp::to_string(p.passes[n].pass));
            table.add_row({method, perf::describe_config(p.config), std::to_string(gpus), spec, format_tokens(seqlen),
                           pass, format_ms(sim.time_us),
                           format_fixed(sim.time_us > 0 ? sim.flops() / sim.time_us * 1e-6 / gpus : 0, 1),
                           format_ms(slow.compute_us), format_ms(slow.comm_us), format_ms(slow.exposed_comm_us),
                           format_fixed(sim.comm_hidden_fraction(), 3),
                           format_fixed(sim.imbalance(), 3), format_ms(sim.critical_compute_us),
                           format_ms(sim.critical_comm_us), format_bytes(static_cast<double>(sim.peak_mem_bytes()))});
            if (steps) {
              for (size_t r = 0; r < sim.steps.size(); ++r)
                for (size_t s = 0; s < sim.steps[r].size(); ++s)
                  if (sim.steps[r][s].present)
                    step_table.add_row({perf::describe_config(p.config), pass, std::to_string(r), std::to_string(s),
                                        format_ms(sim.steps[r][s].start_us), format_ms(sim.steps[r][s].end_us)});
            }
            if (!trace_path.empty()) {
              perf::append_timeline(*p.passes[n].schedule, sim, timeline, trace_offset_us);
              trace_meta["configs"].push_back({{"config", perf::describe_config(p.config)},
                                               {"mask", spec},
                                               {"seqlen", seqlen},
                                               {"pass", pass},
                                               {"start_us", trace_offset_us}});
              trace_offset_us += sim.time_us;
            }
            sink.write(perf::cp_record(p, n, kernel, profile));
          }
        }
      }
    }
  }
  print_table(table, out);
  if (steps && out.json_path != "-" && out.csv_path != "-") {
    std::cout << "\n";
    step_table.print_markdown(std::cout);
  }
  if (!trace_path.empty()) {
    perf::write_chrome_trace_file(timeline, trace_path, trace_meta);
    std::cerr << "lcab-predict cp: wrote the predicted timeline to " << trace_path << "\n";
  }
  return 0;
}

}  // namespace lcab::predict
