// Options shared by every executable (DESIGN.md section 8): the workload (--mask, --seqlen, --heads, ...),
// the cluster (--gpus, --gpus-per-node, --profile) and the outputs (--json, --csv). List-valued options take
// commas; token counts take k/K/M suffixes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

namespace lcab::cli {

namespace po = boost::program_options;

struct WorkloadOptions {
  std::vector<std::string> masks{"causal"};
  std::vector<int64_t> seqlens{32768};
  std::vector<int64_t> heads{64};
  std::vector<int64_t> kv_heads{8};
  std::vector<int64_t> head_dims{128};
  std::vector<std::string> dtypes{"bf16"};
  std::vector<std::string> passes{"fwd"};
  std::vector<std::string> impls{"lcab_flash"};
  int64_t batch = 1;
};

struct OutputOptions {
  std::string json_path;  ///< "" none, "-" stdout
  std::string csv_path;
};

/// Raw text of the workload options, converted by finish_workload_options after parsing.
struct WorkloadText {
  std::string masks = "causal";
  std::string seqlens = "32k";
  std::string heads = "64";
  std::string kv_heads = "8";
  std::string head_dims = "128";
  std::string dtypes = "bf16";
  std::string passes = "fwd";
  std::string impls = "lcab_flash";
};

/// Adds --mask --seqlen --heads --kv-heads --head-dim --dtype --pass --impl --batch.
void add_workload_options(po::options_description& desc, WorkloadText& text, WorkloadOptions& opts);
/// Parses the list texts into opts; throws lcab::Error with a clear message on bad values, and where a --heads value
/// is not a multiple of a --kv-heads value (GQA groups; every command runs each pair of the two lists).
void finish_workload_options(const WorkloadText& text, WorkloadOptions& opts);
/// Throws lcab::Error naming both options unless heads is a multiple of kv_heads (each kv head serves a group of q
/// heads); heads_name and kv_heads_name are how the caller's input spells them ("--heads", or a grid's "'heads'").
void check_gqa_heads(int64_t heads, int64_t kv_heads, std::string_view heads_name, std::string_view kv_heads_name);
/// The cluster a prediction is for: GPU counts (a list), GPUs per node and the hardware profile (a built-in
/// name or a profile JSON path).
struct ClusterOptions {
  std::vector<int64_t> gpus{8};
  int64_t gpus_per_node = 8;
  std::string profile = "h100_sxm";
};
struct ClusterText {
  std::string gpus = "8";
};
/// Adds --gpus --gpus-per-node --profile.
void add_cluster_options(po::options_description& desc, ClusterText& text, ClusterOptions& opts);
/// Parses --gpus and checks the counts are positive; throws lcab::Error.
void finish_cluster_options(const ClusterText& text, ClusterOptions& opts);

/// Adds --json FILE and --csv FILE.
void add_output_options(po::options_description& desc, OutputOptions& opts);

/// Mask specs are split on commas only between specs: "causal,sliding_window:window=512" is two specs, while
/// commas inside a spec's parameter list stay ("block_sparse:density=0.2,block=64"). A new spec starts at an
/// element that has no '=' before its first ':' or has no '=' at all.
std::vector<std::string> split_mask_specs(const std::string& text);

/// Runs a subcommand's parser; on --help prints usage and returns false.
bool parse_or_help(const std::vector<std::string>& args, const po::options_description& desc,
                   const std::string& usage);

}  // namespace lcab::cli
