#include "apps/lcab_report/report_command.h"

#include <iostream>
#include <memory>

#include "apps/cli/common_options.h"
#include "apps/lcab_report/model_predictor.h"
#include "model/cli_values.h"
#include "model/error.h"
#include "model/perf/profile.h"
#include "model/record.h"
#include "reports/report_builder.h"
#include "reports/report_writer.h"

namespace lcab::report_app {

int run_report(const std::vector<std::string>& args) {
  namespace po = cli::po;
  po::options_description desc("lcab-report");
  std::vector<std::string> inputs;
  std::vector<std::string> traces;
  std::string out_dir;
  std::string profile;
  std::string title = "lcab report";
  double band_percent = 20;
  std::string plan_gpus, plan_gpus_per_node, plan_mask, plan_seqlen, plan_pass;
  desc.add_options()
      ("in", po::value(&inputs)->multitoken()->required(), "record files (JSON Lines), measured and/or predicted")
      ("out", po::value(&out_dir)->required(), "directory for index.html, *.svg, *.md, *.csv, *.trace.json")
      ("profile", po::value(&profile), "hardware profile (built-in name such as h100_sxm, or a JSON file): adds the "
                                        "model's predictions, the plan and predicted timelines")
      ("title", po::value(&title)->default_value(title), "report title")
      ("band", po::value(&band_percent)->default_value(band_percent), "error band of the accuracy figure, percent")
      ("trace", po::value(&traces)->multitoken(), "measured CP timelines (Chrome-trace JSON) to show beside predictions")
      ("plan-gpus", po::value(&plan_gpus), "plan table: GPUs (default: chosen from the records)")
      ("plan-gpus-per-node", po::value(&plan_gpus_per_node), "plan table: GPUs per node")
      ("plan-mask", po::value(&plan_mask), "plan table: mask spec")
      ("plan-seqlen", po::value(&plan_seqlen), "plan table: sequence length, e.g. 1M")
      ("plan-pass", po::value(&plan_pass), "plan table: fwd or bwd");
  if (!cli::parse_or_help(args, desc, "lcab-report --in FILES... --out DIR")) return 0;
  LCAB_CHECK(band_percent > 0 && band_percent < 100, "--band must be a percentage in (0, 100), got " << band_percent);

  report::ReportOptions options;
  options.title = title;
  options.input_paths = inputs;
  options.band_fraction = band_percent / 100;
  options.measured_trace_paths = traces;
  if (!plan_gpus.empty()) options.plan.gpus = parse_int(plan_gpus);
  if (!plan_gpus_per_node.empty()) options.plan.gpus_per_node = parse_int(plan_gpus_per_node);
  if (!plan_mask.empty()) options.plan.mask = plan_mask;
  if (!plan_seqlen.empty()) options.plan.seqlen = parse_token_count(plan_seqlen);
  if (!plan_pass.empty()) {
    LCAB_CHECK(plan_pass == "fwd" || plan_pass == "bwd", "--plan-pass '" << plan_pass << "' is not valid; valid: fwd, bwd");
    options.plan.pass = plan_pass;
  }

  const RecordReadResult read = read_records(inputs);
  for (const std::string& problem : read.problems) std::cerr << "lcab-report: skipped " << problem << "\n";
  std::unique_ptr<ModelPredictor> predictor;
  if (!profile.empty()) predictor = std::make_unique<ModelPredictor>(perf::resolve_profile(profile));
  const report::ReportContent content = report::build_report(read.records, options, predictor.get());
  const std::vector<std::string> written = report::write_report(content, out_dir);
  std::cerr << "lcab-report: " << read.records.size() << " records from " << inputs.size() << " file(s); wrote "
            << written.size() << " files to " << out_dir << " (open " << written.front() << ")\n";
  return 0;
}

}  // namespace lcab::report_app
