// lcab-predict sweep --grid GRID.json: plans over a grid of masks x sequence lengths x GPU counts, one record per
// config and pass, and a summary table (the best config of each point).
//
// GRID.json: {"masks": ["causal", ...] | "all", "seqlens": ["4k", 65536, ...], "gpus": [8, 64, ...],
//             "gpus_per_node": 8, "methods": [...], "configs": "all" | "one_per_method", "impl": "lcab_flash",
//             "passes": ["fwd", "bwd"], "heads": 64, "kv_heads": 8, "head_dim": 128, "dtype": "bf16",
//             "batch": 1, "profile": "h100_sxm", "threads": 0, "prune": true}
// Only masks, seqlens and gpus are required. "prune" as lcab-predict plan (false: as plan --exact). Plans run
// "threads" at a time, the points of one mask and length and then the next (perf::make_plan_groups), records
// written in grid order.
#include <chrono>
#include <fstream>
#include <iostream>

#include "apps/cli/common_options.h"
#include "apps/lcab_predict/commands.h"
#include "apps/lcab_predict/predict_common.h"
#include "model/cli_values.h"
#include "model/error.h"
#include "model/mask_spec.h"
#include "model/perf/planner.h"

namespace lcab::predict {
namespace {
using nlohmann::json;

std::vector<std::string> strings(const json& grid, const char* key, std::vector<std::string> fallback) {
  if (!grid.contains(key)) return fallback;
  std::vector<std::string> out;
  LCAB_CHECK(grid[key].is_array(), "grid: '" << key << "' must be an array of strings");
  for (const json& v : grid[key]) {
    LCAB_CHECK(v.is_string(), "grid: '" << key << "' must be an array of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}
std::vector<int64_t> tokens(const json& grid, const char* key) {
  LCAB_CHECK(grid.contains(key) && grid[key].is_array() && !grid[key].empty(),
             "grid: '" << key << "' must be a non-empty array (numbers or texts like \"4k\")");
  std::vector<int64_t> out;
  for (const json& v : grid[key]) out.push_back(v.is_string() ? parse_token_count(v.get<std::string>()) : v.get<int64_t>());
  return out;
}
template <typename T>
T value_or(const json& grid, const char* key, T fallback) {
  return grid.contains(key) ? grid[key].get<T>() : fallback;
}
}  // namespace

int run_sweep(const std::vector<std::string>& args, int argc, const char* const* argv) {
  cli::po::options_description desc("lcab-predict sweep");
  std::string grid_path;
  cli::OutputOptions out;
  desc.add_options()("grid", cli::po::value(&grid_path)->required(), "grid JSON file (see the README)");
  cli::add_output_options(desc, out);
  if (!cli::parse_or_help(args, desc, "lcab-predict sweep --grid GRID.json [--json FILE]")) return 0;
  std::ifstream in(grid_path);
  LCAB_CHECK(in.good(), "cannot open grid '" << grid_path << "'");
  json grid;
  try {
    in >> grid;
  } catch (const json::exception& e) {
    LCAB_THROW("grid '" << grid_path << "' is not valid JSON: " << e.what());
  }
  const std::vector<std::string> known = {"masks", "seqlens", "gpus", "gpus_per_node", "methods", "configs", "impl",
                                          "passes", "heads", "kv_heads", "head_dim", "dtype", "batch", "profile",
                                          "threads", "prune"};
  for (const auto& [key, value] : grid.items())
    LCAB_CHECK(std::find(known.begin(), known.end(), key) != known.end(),
               "grid: unknown key '" << key << "'; valid: " << join(known));
  std::vector<std::string> masks;
  if (grid.contains("masks") && grid["masks"].is_string() && grid["masks"] == "all") {
    for (const MaskPattern& p : builtin_mask_patterns().patterns()) masks.push_back(p.name);  // not "file:PATH"
  } else {
    masks = strings(grid, "masks", {});
  }
  LCAB_CHECK(!masks.empty(), "grid: 'masks' must list mask specs or be \"all\"");
  const std::vector<int64_t> seqlens = tokens(grid, "seqlens");
  const std::vector<int64_t> gpus_list = tokens(grid, "gpus");
  const int64_t gpus_per_node = value_or<int64_t>(grid, "gpus_per_node", 8);
  const std::string configs = value_or<std::string>(grid, "configs", "all");
  LCAB_CHECK(configs == "all" || configs == "one_per_method",
             "grid: 'configs' must be \"all\" or \"one_per_method\", got \"" << configs << "\"");
  const perf::HardwareProfile profile = perf::resolve_profile(value_or<std::string>(grid, "profile", "h100_sxm"));
  cli::WorkloadOptions opts;
  opts.batch = value_or<int64_t>(grid, "batch", 1);
  const int64_t heads = value_or<int64_t>(grid, "heads", 64);
  const int64_t kv_heads = value_or<int64_t>(grid, "kv_heads", 8);
  cli::check_gqa_heads(heads, kv_heads, "grid: 'heads'", "'kv_heads'");
  const int64_t head_dim = value_or<int64_t>(grid, "head_dim", 128);

  perf::PlanRequest request;
  request.kernel = {value_or<std::string>(grid, "impl", "lcab_flash"), value_or<std::string>(grid, "dtype", "bf16")};
  request.passes = parse_passes(strings(grid, "passes", {"fwd", "bwd"}));
  request.methods = strings(grid, "methods", {});
  request.one_config_per_method = configs == "one_per_method";
  request.threads = value_or<int>(grid, "threads", 0);
  request.prune = value_or<bool>(grid, "prune", true);
  RecordSink sink(out, argc, argv);
  Table table({"mask", "seqlen", "gpus", "configs", "rejected", "best config", "best ms", "slowest ms", "plan s"});
  const auto started = std::chrono::steady_clock::now();
  size_t points = 0, predictions = 0;
  const size_t total = masks.size() * seqlens.size() * gpus_list.size();
  // Every GPU count of a mask and length shares one cache (its tile grids are made once); the points of the next
  // mask and length start while the last plans of one finish (perf::make_plan_groups), records in grid order.
  std::vector<perf::ClusterShape> clusters;
  for (int64_t gpus : gpus_list) clusters.push_back({gpus, gpus_per_node});
  const auto spec_of = [&](size_t group) -> const std::string& { return masks[group / seqlens.size()]; };
  const auto seqlen_of = [&](size_t group) { return seqlens[group % seqlens.size()]; };
  perf::make_plan_groups(
      profile, clusters, masks.size() * seqlens.size(), request.threads,
      [&](size_t group) {
        perf::PlanRequest r = request;
        r.workload = make_workload(spec_of(group), seqlen_of(group), opts, heads, kv_heads, head_dim);
        return r;
      },
      [&](size_t group, std::vector<perf::Plan> plans) {
        const std::string& spec = spec_of(group);
        const int64_t seqlen = seqlen_of(group);
        for (size_t point = 0; point < plans.size(); ++point) {
          const int64_t gpus = gpus_list[point];
          const perf::Plan& plan = plans[point];
          ++points;
          predictions += plan.entries.size();
          for (const perf::PlanEntry& e : plan.entries) {
            for (size_t n = 0; n < e.bound.passes.size(); ++n) {
              if (e.pruned) {
                sink.write(perf::cp_bound_record(e.bound, n, request.kernel, profile));
                continue;
              }
              Record r = perf::cp_record(e.prediction, n, request.kernel, profile);
              if (!e.fits) r.status = "oom";
              sink.write(std::move(r));
            }
          }
          const bool any = !plan.entries.empty();
          auto time_text = [](const perf::PlanEntry& e) {
            return e.pruned ? "> " + format_ms(e.bound.time_lower_bound_us) : format_ms(e.prediction.time_us());
          };
          table.add_row({spec, format_tokens(seqlen), std::to_string(gpus), std::to_string(plan.entries.size()),
                         std::to_string(plan.skipped.size()),
                         any ? perf::describe_config(plan.entries.front().prediction.config) : "-",
                         any ? time_text(plan.entries.front()) : "-", any ? time_text(plan.entries.back()) : "-",
                         format_fixed(plan.elapsed_s, 3)});
          std::cerr << "lcab-predict sweep: [" << points << "/" << total << "] " << spec << " "
                    << format_tokens(seqlen) << " on " << gpus << " GPUs: " << plan.entries.size() << " configs in "
                    << format_fixed(plan.elapsed_s, 3) << " s\n";
        }
      });
  print_table(table, out);
  std::cerr << "lcab-predict sweep: " << points << " points, " << predictions << " configs predicted in "
            << format_fixed(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 2)
            << " s\n";
  return 0;
}

}  // namespace lcab::predict
