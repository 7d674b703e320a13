// lcab-predict plan: every CP method x degrees x placement x window count for a cluster, predicted and ranked
// by time; configs that do not fit in memory are listed after those that do, marked as such.
#include <algorithm>
#include <iostream>

#include "apps/cli/common_options.h"
#include "apps/lcab_predict/commands.h"
#include "apps/lcab_predict/predict_common.h"
#include "model/cli_values.h"
#include "model/error.h"
#include "model/perf/planner.h"

namespace lcab::predict {

namespace {
Table plan_table(const perf::Plan& plan, const std::vector<cp::Pass>& passes, int64_t gpus, size_t top) {
  std::vector<std::string> columns = {"#", "config"};
  for (cp::Pass pass : passes) columns.push_back(std::string(cp::to_string(pass)) + " ms");
  for (const char* c : {"total ms", "TFLOP/s/GPU", "exposed comm ms", "imbalance", "peak mem", "fits"})
    columns.emplace_back(c);
  Table table(columns);
  size_t rank = 0;
  for (const perf::PlanEntry& e : plan.entries) {
    if (top > 0 && rank >= top) break;
    ++rank;
    const perf::CpPrediction& p = e.prediction;
    std::vector<std::string> row = {std::to_string(rank), perf::describe_config(p.config)};
    if (e.pruned) {  // not simulated: only its lower bound is known (see PlanRequest::prune)
      for (const perf::PassBound& b : e.bound.pass_bounds) row.push_back("> " + format_ms(b.time_lower_bound_us));
      row.push_back("> " + format_ms(e.bound.time_lower_bound_us));
      for (int n = 0; n < 3; ++n) row.push_back("-");
    } else {
      for (const perf::PassPrediction& pp : p.passes) row.push_back(format_ms(pp.simulation.time_us));
      const double t = p.time_us();
      row.push_back(format_ms(t));
      row.push_back(format_fixed(t > 0 ? p.flops() / t * 1e-6 / static_cast<double>(gpus) : 0, 1));
      row.push_back(format_ms(p.exposed_comm_us()));
      row.push_back(format_fixed(p.imbalance(), 3));
    }
    row.push_back(format_bytes(static_cast<double>(e.bound.peak_mem_bytes)));
    row.push_back(e.fits ? "yes" : "no (oom)");
    table.add_row(std::move(row));
  }
  return table;
}

/// Where the methods rejected every config, why: each distinct reason once, with the configs it rejected, so that
/// an empty table never stands alone (--show-skipped lists every config with its reason instead).
void print_rejections(const perf::Plan& plan) {
  std::vector<std::pair<std::string, std::string>> reason_configs;
  for (const perf::SkippedConfig& s : plan.skipped) reason_configs.emplace_back(s.reason, perf::describe_config(s.config));
  std::cout << "\nNo config could be ranked: the methods rejected all " << plan.skipped.size() << ".\n";
  constexpr size_t kNamed = 3;  // configs named per reason
  for (const auto& [reason, configs] : group_by_label(reason_configs)) {
    std::cout << "- " << configs.size() << (configs.size() == 1 ? " config (" : " configs (");
    for (size_t n = 0; n < std::min(configs.size(), kNamed); ++n) std::cout << (n ? ", " : "") << configs[n];
    if (configs.size() > kNamed) std::cout << ", ...";
    std::cout << "): " << reason << "\n";
  }
}
}  // namespace

int run_plan(const std::vector<std::string>& args, int argc, const char* const* argv) {
  cli::po::options_description desc("lcab-predict plan");
  cli::WorkloadText text;
  text.passes = "fwd,bwd";
  text.masks = "causal_document_long";
  text.seqlens = "512k";
  cli::WorkloadOptions opts;
  cli::ClusterText cluster_text;
  cluster_text.gpus = "64";
  cli::ClusterOptions cluster;
  cli::OutputOptions out;
  std::string methods_text, windows_text;
  double memory_limit_gib = 0;
  int threads = 0;
  size_t top = 0;
  bool show_skipped = false;
  bool exact = false;
  cli::add_workload_options(desc, text, opts);
  cli::add_cluster_options(desc, cluster_text, cluster);
  desc.add_options()
      ("method", cli::po::value(&methods_text), "CP methods to consider (default: all registered)")
      ("windows", cli::po::value(&windows_text), "loongtrain window counts to try (default: powers of two 1 < W < R, W <= 8)")
      ("memory-limit-gib", cli::po::value(&memory_limit_gib)->default_value(0), "memory a rank may use for attention (default: the GPU's memory)")
      ("top", cli::po::value(&top)->default_value(0), "show only the N fastest configs (records keep all)")
      ("threads", cli::po::value(&threads)->default_value(0), "worker threads (default: all hardware threads)")
      ("show-skipped", cli::po::bool_switch(&show_skipped), "list the configs the methods reject, with why")
      ("exact", cli::po::bool_switch(&exact),
       "simulate every config (default: configs bounded above every simulated time are shown with their bound)");
  cli::add_output_options(desc, out);
  if (!cli::parse_or_help(args, desc, "lcab-predict plan --gpus P [--gpus-per-node G] --mask SPEC --seqlen S"))
    return 0;
  cli::finish_workload_options(text, opts);
  cli::finish_cluster_options(cluster_text, cluster);
  LCAB_CHECK(opts.impls.size() == 1 && opts.dtypes.size() == 1 && opts.heads.size() == 1 &&
                 opts.kv_heads.size() == 1 && opts.head_dims.size() == 1,
             "lcab-predict plan takes one --impl, --dtype, --heads, --kv-heads and --head-dim; lists are for "
             "--mask, --seqlen and --gpus");
  LCAB_CHECK(memory_limit_gib >= 0, "--memory-limit-gib must be >= 0, got " << memory_limit_gib);
  const perf::HardwareProfile profile = perf::resolve_profile(cluster.profile);
  RecordSink sink(out, argc, argv);
  const bool stdout_taken = out.json_path == "-" || out.csv_path == "-";

  perf::PlanRequest request;
  request.kernel = {opts.impls[0], opts.dtypes[0]};
  request.passes = parse_passes(opts.passes);
  if (!methods_text.empty()) request.methods = split_list(methods_text);
  if (!windows_text.empty()) request.windows = parse_token_list(windows_text);
  request.memory_limit_bytes = static_cast<int64_t>(memory_limit_gib * 1073741824.0);
  request.threads = threads;
  request.prune = !exact;
  for (const std::string& spec : opts.masks) {
    for (int64_t seqlen : opts.seqlens) {
      request.workload = make_workload(spec, seqlen, opts, opts.heads[0], opts.kv_heads[0], opts.head_dims[0]);
      for (int64_t gpus : cluster.gpus) {
        const perf::ClusterShape shape{gpus, cluster.gpus_per_node};
        const perf::Plan plan = perf::make_plan(profile, shape, request);
        for (const perf::PlanEntry& e : plan.entries) {
          for (size_t n = 0; n < e.bound.passes.size(); ++n) {
            Record r = e.pruned ? perf::cp_bound_record(e.bound, n, request.kernel, profile)
                                : perf::cp_record(e.prediction, n, request.kernel, profile);
            if (!e.fits && !e.pruned) {
              r.status = "oom";
              r.error = "needs " + format_bytes(static_cast<double>(e.prediction.peak_mem_bytes())) + " per rank, " +
                        format_bytes(static_cast<double>(plan.memory_limit_bytes)) + " available";
            }
            sink.write(std::move(r));
          }
        }
        if (!stdout_taken) {
          std::cout << "\nPlan: " << spec << " at " << format_tokens(seqlen) << " tokens on " << gpus << " GPUs ("
                    << shape.nodes() << " x " << std::min(gpus, cluster.gpus_per_node) << "), " << opts.heads[0]
                    << "/" << opts.kv_heads[0] << " heads, hd " << opts.head_dims[0] << ", " << request.kernel.impl
                    << ", profile " << profile.name << " (" << profile.provenance.kind << "): "
                    << plan.entries.size() - plan.pruned() << " configs ranked";
          if (plan.pruned() > 0)
            std::cout << ", " << plan.pruned() << " not simulated (time lower bound above every ranked time: \"> ms\")";
          std::cout << ", " << plan.skipped.size() << " rejected, " << format_fixed(plan.elapsed_s, 2) << " s\n"
                    << "Model basis: "
                    << perf::describe_fit_basis(profile, request.kernel.impl, request.kernel.dtype, opts.head_dims[0],
                                                opts.passes)
                    << "\n\n";
        }
        print_table(plan_table(plan, request.passes, gpus, top), out);
        if (show_skipped && !stdout_taken) {
          std::cout << "\nRejected configs:\n";
          for (const perf::SkippedConfig& s : plan.skipped)
            std::cout << "- " << perf::describe_config(s.config) << ": " << s.reason << "\n";
        } else if (plan.entries.empty() && !plan.skipped.empty() && !stdout_taken) {
          print_rejections(plan);
        }
      }
    }
  }
  return 0;
}

}  // namespace lcab::predict
