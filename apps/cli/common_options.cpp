#include "apps/cli/common_options.h"

#include <iostream>

#include "model/cli_values.h"
#include "model/error.h"

namespace lcab::cli {

void add_workload_options(po::options_description& desc, WorkloadText& text, WorkloadOptions& opts) {
  desc.add_options()
      ("mask", po::value(&text.masks)->default_value(text.masks), "mask spec(s), comma-separated: name[:key=value,...]")
      ("seqlen", po::value(&text.seqlens)->default_value(text.seqlens), "sequence length(s) in tokens, e.g. 4k,16k,1M")
      ("heads", po::value(&text.heads)->default_value(text.heads), "q heads (list)")
      ("kv-heads", po::value(&text.kv_heads)->default_value(text.kv_heads), "kv heads (list; GQA when < heads)")
      ("head-dim", po::value(&text.head_dims)->default_value(text.head_dims), "head dim(s): 64, 128, 256")
      ("dtype", po::value(&text.dtypes)->default_value(text.dtypes), "bf16 and/or fp16")
      ("pass", po::value(&text.passes)->default_value(text.passes), "fwd and/or bwd")
      ("impl", po::value(&text.impls)->default_value(text.impls), "kernel implementation(s)")
      ("batch", po::value(&opts.batch)->default_value(opts.batch), "batch size");
}

namespace {
std::vector<int64_t> positive_list(const std::string& text, const char* option) {
  std::vector<int64_t> values;
  try {
    values = parse_token_list(text);
  } catch (const Error& e) {
    LCAB_THROW("--" << option << ": " << e.what());
  }
  for (int64_t v : values) LCAB_CHECK(v > 0, "--" << option << " must be positive, got " << v);
  return values;
}
std::vector<std::string> checked_list(const std::string& text, const char* option,
                                      const std::vector<std::string>& valid) {
  std::vector<std::string> values = split_list(text);
  for (const std::string& v : values) {
    bool ok = valid.empty();
    for (const std::string& x : valid) ok = ok || v == x;
    LCAB_CHECK(ok, "--" << option << " '" << v << "' is not valid; valid: " << join(valid));
  }
  return values;
}
}  // namespace

void finish_workload_options(const WorkloadText& text, WorkloadOptions& opts) {
  opts.masks = split_mask_specs(text.masks);
  opts.seqlens = positive_list(text.seqlens, "seqlen");
  opts.heads = positive_list(text.heads, "heads");
  opts.kv_heads = positive_list(text.kv_heads, "kv-heads");
  opts.head_dims = positive_list(text.head_dims, "head-dim");
  opts.dtypes = checked_list(text.dtypes, "dtype", {"bf16", "fp16"});
  opts.passes = checked_list(text.passes, "pass", {"fwd", "bwd"});
  opts.impls = checked_list(text.impls, "impl", {});
  LCAB_CHECK(opts.batch > 0, "--batch must be positive, got " << opts.batch);
  for (int64_t heads : opts.heads)
    for (int64_t kv_heads : opts.kv_heads) check_gqa_heads(heads, kv_heads, "--heads", "--kv-heads");
}

void check_gqa_heads(int64_t heads, int64_t kv_heads, std::string_view heads_name, std::string_view kv_heads_name) {
  LCAB_CHECK(heads > 0 && kv_heads > 0 && heads % kv_heads == 0,
             heads_name << " " << heads << " must be a multiple of " << kv_heads_name << " " << kv_heads
                        << " (each kv head serves a group of q heads)");
}

void add_cluster_options(po::options_description& desc, ClusterText& text, ClusterOptions& opts) {
  desc.add_options()
      ("gpus", po::value(&text.gpus)->default_value(text.gpus), "GPU count(s), e.g. 8,64,1024")
      ("gpus-per-node", po::value(&opts.gpus_per_node)->default_value(opts.gpus_per_node), "GPUs per node")
      ("profile", po::value(&opts.profile)->default_value(opts.profile),
       "hardware profile: a built-in name (h100_sxm, h200_sxm) or a profile JSON file");
}

void finish_cluster_options(const ClusterText& text, ClusterOptions& opts) {
  opts.gpus = positive_list(text.gpus, "gpus");
  LCAB_CHECK(opts.gpus_per_node > 0, "--gpus-per-node must be positive, got " << opts.gpus_per_node);
}

void add_output_options(po::options_description& desc, OutputOptions& opts) {
  desc.add_options()
      ("json", po::value(&opts.json_path), "append records as JSON Lines to FILE ('-' for stdout)")
      ("csv", po::value(&opts.csv_path), "write the table as CSV to FILE ('-' for stdout)");
}

std::vector<std::string> split_mask_specs(const std::string& text) {
  std::vector<std::string> specs;
  for (const std::string& item : split_list(text)) {
    const size_t colon = item.find(':');
    const size_t eq = item.find('=');
    const bool starts_spec = specs.empty() || eq == std::string::npos || (colon != std::string::npos && colon < eq);
    if (starts_spec || specs.back().rfind("file:", 0) == 0) specs.push_back(item);
    else specs.back() += "," + item;
  }
  return specs;
}

bool parse_or_help(const std::vector<std::string>& args, const po::options_description& desc,
                   const std::string& usage) {
  po::options_description all(desc);
  all.add_options()("help,h", "show this help");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).run(), vm);
  } catch (const po::error& e) {
    LCAB_THROW(e.what() << "; see " << usage << " --help");
  }
  if (vm.count("help")) {
    std::cout << "usage: " << usage << "\n\n" << all << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}

}  // namespace lcab::cli
