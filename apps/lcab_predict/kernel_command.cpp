// lcab-predict kernel: the kernel model's time (and the part of it spent in memory-bound passes outside the tile
// loop), TFLOP/s, tiles, waves, imbalance and memory of attention calls, and what each prediction rests on (its
// profile entry fitted to measurements, or the datasheet layer's). A call the implementation cannot make
// (perf::kernel_mask_shortfall) is "unsupported", with the reason below the table and in its record.
#include <iostream>

#include "apps/cli/common_options.h"
#include "apps/lcab_predict/commands.h"
#include "apps/lcab_predict/predict_common.h"
#include "model/cli_values.h"
#include "model/error.h"
#include "model/mask_spec.h"
#include "model/perf/kernel_cost.h"
#include "model/perf/kernel_mask_support.h"

namespace lcab::predict {

int run_kernel(const std::vector<std::string>& args, int argc, const char* const* argv) {
  cli::po::options_description desc("lcab-predict kernel");
  cli::WorkloadText text;
  cli::WorkloadOptions opts;
  cli::ClusterText cluster_text;
  cli::ClusterOptions cluster;
  cli::OutputOptions out;
  cli::add_workload_options(desc, text, opts);
  cli::add_cluster_options(desc, cluster_text, cluster);
  cli::add_output_options(desc, out);
  if (!cli::parse_or_help(args, desc, "lcab-predict kernel --impl NAME --mask SPEC --seqlen S --pass fwd|bwd"))
    return 0;
  cli::finish_workload_options(text, opts);
  const perf::HardwareProfile profile = perf::resolve_profile(cluster.profile);
  RecordSink sink(out, argc, argv);

  const std::vector<std::string> columns = {"impl",  "pass",    "mask",      "seqlen",    "heads", "kv",
                                            "hd",    "time ms", "passes ms", "TFLOP/s",   "tiles", "partial",
                                            "idle half", "waves", "imbalance", "peak mem", "basis"};
  const size_t table_columns = columns.size();
  Table table(columns);
  std::vector<std::string> unsupported;  // "impl pass mask seqlen: why", below the table
  for (const std::string& spec : opts.masks) {
    for (int64_t seqlen : opts.seqlens) {
      for (int64_t kv_heads : opts.kv_heads) {
        const Mask mask = make_mask(spec, seqlen, kv_heads);
        for (int64_t heads : opts.heads) {
          for (int64_t head_dim : opts.head_dims) {
            for (const std::string& dtype : opts.dtypes) {
              for (const std::string& impl : opts.impls) {
                for (const std::string& pass : opts.passes) {
                  const perf::KernelParams& params = profile.kernel(impl, pass, head_dim, dtype);
                  const std::string basis = params.fitted() ? "fitted" : "datasheet";
                  const std::vector<std::string> key_cells = {impl, pass, spec, format_tokens(seqlen),
                                                              std::to_string(heads), std::to_string(kv_heads),
                                                              std::to_string(head_dim)};
                  Record r;
                  r.source = "predicted";
                  r.kind = "kernel";
                  r.key.impl = impl;
                  r.key.pass = pass;
                  r.key.mask = spec;
                  r.key.seqlen = seqlen;
                  r.key.batch = opts.batch;
                  r.key.heads = heads;
                  r.key.kv_heads = kv_heads;
                  r.key.head_dim = head_dim;
                  r.key.dtype = dtype;
                  r.device = DeviceInfo{profile.gpu.name, profile.sms(), ""};
                  r.extra["profile"] = profile.name;
                  if (const std::string why = perf::kernel_mask_shortfall(impl, mask); !why.empty()) {
                    std::vector<std::string> cells = key_cells;
                    cells.push_back("unsupported");
                    cells.resize(table_columns, "-");
                    table.add_row(cells);
                    unsupported.push_back(impl + " " + pass + " " + spec + " " + format_tokens(seqlen) + ": " + why);
                    r.status = "unsupported";
                    r.error = why;
                    sink.write(std::move(r));
                    continue;
                  }
                  const perf::KernelCostModel model(profile, params);
                  perf::AttentionShape shape;
                  shape.batch = opts.batch;
                  shape.heads = heads;
                  shape.kv_heads = kv_heads;
                  shape.head_dim = head_dim;
                  const perf::KernelCost c = model.cost(mask, shape);
                  std::vector<std::string> cells = key_cells;
                  for (std::string cell :
                       {format_ms(c.time_us), format_ms(c.q_pass_us), format_fixed(c.tflops(), 1),
                        format_count(c.full_tiles + c.partial_tiles), format_count(c.partial_tiles),
                        format_count(c.idle_half_tiles), format_fixed(c.waves(), 2),
                        format_fixed(c.slots.imbalance(), 3), format_bytes(static_cast<double>(c.peak_mem_bytes)),
                        basis}) {
                    cells.push_back(std::move(cell));
                  }
                  table.add_row(cells);
                  const double ms = c.time_us * 1e-3;
                  r.time_ms = TimeStatsMs{ms, ms, ms};
                  r.tflops = c.tflops();
                  r.flops = c.flops;
                  r.area = mask.mean_area();
                  r.peak_mem_bytes = c.peak_mem_bytes;
                  r.extra["tiles"] = {{"full", c.full_tiles},
                                      {"partial", c.partial_tiles},
                                      {"idle_half", c.idle_half_tiles}};
                  r.extra["waves"] = c.waves();
                  r.extra["imbalance"] = c.slots.imbalance();
                  r.extra["q_pass_ms"] = c.q_pass_us * 1e-3;
                  r.extra["basis"] = basis;
                  sink.write(std::move(r));
                }
              }
            }
          }
        }
      }
    }
  }
  print_table(table, out);
  if (!unsupported.empty() && out.json_path != "-" && out.csv_path != "-") {
    std::cout << "\nunsupported (the implementation cannot make the call):\n";
    for (const std::string& line : unsupported) std::cout << "  " << line << "\n";
  }
  return 0;
}

}  // namespace lcab::predict
