// lcab-predict mask: slices, area, density, documents and tile counts of mask specs, with generation time.
#include <chrono>
#include <fstream>
#include <iostream>

#include "apps/cli/common_options.h"
#include "apps/lcab_predict/commands.h"
#include "model/cli_values.h"
#include "model/error.h"
#include "model/mask_file.h"
#include "model/mask_spec.h"
#include "model/mask_tiling.h"
#include "model/record.h"
#include "reports/table.h"

namespace lcab::predict {

int run_mask(const std::vector<std::string>& args, int argc, const char* const* argv) {
  cli::po::options_description desc("lcab-predict mask");
  std::string masks_text = "causal";
  std::string seqlens_text = "32k";
  int64_t kv_heads = 8;
  bool with_slices = false;
  cli::OutputOptions out;
  desc.add_options()
      ("mask", cli::po::value(&masks_text)->default_value(masks_text), "mask spec(s), comma-separated")
      ("seqlen", cli::po::value(&seqlens_text)->default_value(seqlens_text), "sequence length(s), e.g. 4k,1M")
      ("kv-heads", cli::po::value(&kv_heads)->default_value(kv_heads), "kv heads (per-kv-head masks make one slice list each)")
      ("with-slices", cli::po::bool_switch(&with_slices), "include the slice lists in the JSON records (the file: format)");
  cli::add_output_options(desc, out);
  if (!cli::parse_or_help(args, desc, "lcab-predict mask --mask SPEC --seqlen S [--json FILE]")) return 0;
  LCAB_CHECK(kv_heads > 0, "--kv-heads must be positive, got " << kv_heads);
  const std::vector<std::string> masks = cli::split_mask_specs(masks_text);
  const std::vector<int64_t> seqlens = parse_token_list(seqlens_text);

  const TileShape shapes[] = {{128, 128}, {128, 64}};
  Table table({"mask", "seqlen", "slices", "documents", "area", "density", "tiles 128x128", "partial 128x128",
               "tiles 128x64", "partial 128x64", "gen ms"});
  std::unique_ptr<RecordWriter> writer;
  if (!out.json_path.empty()) writer = std::make_unique<RecordWriter>(out.json_path);
  const nlohmann::json meta = make_meta(argc, argv);
  for (const std::string& spec : masks) {
    for (int64_t seqlen : seqlens) {
      const auto start = std::chrono::steady_clock::now();
      const Mask mask = make_mask(spec, seqlen, kv_heads);
      TileCounts counts[2] = {count_tiles(mask, shapes[0]), count_tiles(mask, shapes[1])};
      const double gen_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      table.add_row({spec, format_tokens(seqlen), format_count(mask.num_slices()), format_count(mask.num_documents()),
                     format_count(static_cast<int64_t>(mask.mean_area())), format_fixed(mask.density(), 4),
                     format_count(counts[0].touched), format_count(counts[0].partial), format_count(counts[1].touched),
                     format_count(counts[1].partial), format_fixed(gen_ms, 2)});
      if (writer) {
        Record r;
        r.source = "predicted";
        r.kind = "mask";
        r.key.mask = spec;
        r.key.seqlen = seqlen;
        if (mask.is_per_kv_head()) r.key.kv_heads = kv_heads;
        r.area = mask.mean_area();
        r.meta = meta;
        r.extra["density"] = mask.density();
        r.extra["slices"] = mask.num_slices();
        r.extra["documents"] = mask.num_documents();
        r.extra["generation_ms"] = gen_ms;
        for (int s = 0; s < 2; ++s) {
          const std::string name = std::to_string(shapes[s].q) + "x" + std::to_string(shapes[s].k);
          r.extra["tiles"][name] = {{"touched", counts[s].touched},
                                    {"full", counts[s].full},
                                    {"partial", counts[s].partial},
                                    {"max_per_row", counts[s].max_tiles_per_row}};
        }
        if (with_slices) {
          if (mask.is_per_kv_head()) {
            nlohmann::json heads = nlohmann::json::array();
            for (int h = 0; h < mask.num_head_masks(); ++h) heads.push_back(slices_to_json(mask.slices(h)));
            r.extra["mask_slices"] = {{"seqlen", seqlen}, {"heads", heads}};
          } else {
            r.extra["mask_slices"] = {{"seqlen", seqlen}, {"slices", slices_to_json(mask.slices())}};
          }
        }
        writer->write(r);
      }
    }
  }
  const bool stdout_taken = out.json_path == "-" || out.csv_path == "-";
  if (!stdout_taken) table.print_markdown(std::cout);
  if (!out.csv_path.empty()) {
    if (out.csv_path == "-") {
      table.print_csv(std::cout);
    } else {
      std::ofstream csv(out.csv_path);
      LCAB_CHECK(csv.good(), "cannot write '" << out.csv_path << "'");
      table.print_csv(csv);
    }
  }
  return 0;
}

}  // namespace lcab::predict
