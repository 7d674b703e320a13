// Hardware and cluster profiles (DESIGN.md section 6): the numbers the performance model runs on.
//
// A profile is a JSON file (schema "lcab.profile/1", data/profiles/*.json). Every number carries its source:
//   {"value": 989e12, "source": "H100 SXM datasheet, dense BF16"}
// Built-in profiles start from datasheet and ANCHORS.md figures; lcab-calibrate writes profiles with the same
// schema whose parameters were fitted to measurements (provenance.kind = "calibrated"). Readers ignore unknown
// fields at the top level and in each entry's "fit" object, which calibration uses for residual statistics.
//
// File layout:
//   {"schema": "lcab.profile/1", "name": "h100_sxm",
//    "provenance": {"kind": "datasheet"|"calibrated", "description", "inputs": [...], "devices": [...],
//                   "date", "git_sha", "residuals": {...}},
//    "gpu":     {"name", "sms", "peak_dense_flops_per_s", "hbm_bytes_per_s", "memory_bytes"},
//    "node":    {"gpus_per_node", "intra_bytes_per_s", "intra_latency_us"},
//    "network": {"bytes_per_s", "latency_us"},
//    "overlap_slowdown": {...}, "executor_pass_bytes_per_s": {...} (optional),
//    "kernels": [{"impl", "pass", "head_dim", "dtype", "tile_q", "tile_k", "scheduler", "work_item" (optional),
//                 "ctas_per_sm",
//                 "full_tile_us", "partial_tile_us", "row_us", "launch_us", "q_pass_bytes_per_element" (optional),
//                 "slice_us", "kv_tile_us", "whole_sequence_band", "kv_expand_bytes_per_element",
//                 "sustained_slowdown", "sustained_rate_per_us", "host_floor_us", "dq_tile_fraction",
//                 "unmasked_tile_us", "slices_by_table_width", "register_slices", "spilled_slice_us",
//                 "ragged_sequences", "idle_half_tile_us" (optional: terms of kernels that have them),
//                 "fit"}, ...],
//    "collectives": [{"op", "link", "latency_us", "bytes_per_s", "ll_latency_us" (optional),
//                     "ll_bytes_per_s" (optional), "small_group_us_per_byte" (optional), "fit"}, ...]}
// (every numeric leaf except head_dim, tile_q, tile_k is a {"value", "source"} object).
//
// Meaning of the collective parameters (what calibration fits; n = group size, B = CommOp::chunk_bytes):
//   send_recv:      time = latency_us + B / bytes_per_s
//   all_to_all:     time = latency_us + B * (n - 1) / bytes_per_s          (B per sender-receiver pair)
//   all_gather:     time = latency_us + B * (n - 1) / bytes_per_s          (B contributed per member; ring)
//   reduce_scatter: time = latency_us + B * (n - 1) / bytes_per_s          (B received per member; ring)
//   all_reduce:     time = latency_us + 2 B (n - 1) / n / bytes_per_s       (B the buffer; ring RS + AG)
// i.e. bytes_per_s is nccl-tests' bus bandwidth. Groups larger than two add one link latency per further ring
// step (see comm_cost.h).
// NCCL runs small messages with a low-latency protocol (LL/LL128: lower latency, lower bandwidth) and large ones
// with its Simple protocol, choosing the faster. An entry may give the low-latency line too (ll_latency_us,
// ll_bytes_per_s, both optional); the time is then the smaller of the two lines' times:
//   time = min(latency_us + V / bytes_per_s, ll_latency_us + V / ll_bytes_per_s)   (V as above)
// Without ll_bytes_per_s (absent or 0) only the first line exists.
// Bus bandwidth that grows with the group (small_group_us_per_byte, optional, >= 0; absent: 0): on an NVSwitch node
// NCCL's Simple protocol reaches less bus bandwidth with 2 ranks than with 4 or 8 (H200 records: reduce-scatter
// 228 GB/s on 2 GPUs, 297 on 4), so the Simple line's time per bus byte is
//   1 / bytes_per_s + small_group_us_per_byte * 2 / n                     (n = members; send_recv: n = 2)
// i.e. bytes_per_s is the large-group limit and a 2-rank group pays the whole extra term, 4 ranks half of it. The
// form is monotone in n and bounded by bytes_per_s, so groups larger than the measured ones extrapolate to at
// most that bandwidth; the low-latency line does not depend on n.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/mask_tiling.h"

namespace lcab::perf {

inline constexpr const char* kProfileSchema = "lcab.profile/1";

/// A number and where it came from (datasheet, measurement, fit, assumption).
struct Sourced {
  double value = 0;
  std::string source;
};

struct GpuSpec {
  std::string name;                ///< "NVIDIA H100 80GB HBM3"
  Sourced sms;                     ///< streaming multiprocessors
  Sourced peak_dense_flops_per_s;  ///< dense BF16 tensor-core FLOP/s
  Sourced hbm_bytes_per_s;
  Sourced memory_bytes;            ///< device memory capacity
};

struct NodeSpec {
  Sourced gpus_per_node;
  Sourced intra_bytes_per_s;  ///< NVLink, per GPU, per direction
  Sourced intra_latency_us;   ///< one NVLink hop
};

struct NetworkSpec {
  Sourced bytes_per_s;  ///< inter-node, per GPU (its NIC), per direction
  Sourced latency_us;   ///< one inter-node hop
};

/// How a kernel hands its work items (q-tile row x head x batch) to the SMs.
enum class KernelScheduler : uint8_t {
  kPersistentLongestFirst = 0,  ///< persistent CTAs take the longest remaining row first (FA3, lcab_flash)
  kGridWaves = 1,               ///< a plain grid launch: rows in launch order (row fastest, then head, batch),
                                ///< each CTA to the first free slot (waves)
  kGridCostliestFirst = 2,      ///< a grid launch whose outer tiles of each head mask are ordered costliest first
                                ///< (tiles + 1/4 per boundary tile, the work list's order; empty ones last), then
                                ///< head, batch; each CTA to the first free slot (lcab_flash's Hopper backward
                                ///< before 2026-11-23)
  kGridLongItemsFirst = 3,      ///< kGridCostliestFirst, except that the items long against one slot's share of
                                ///< the work start first, costliest first across heads (perf::grid_launch_order;
                                ///< lcab_flash's Hopper backward before its pairs)
  kGridPairedDocuments = 4,     ///< kGridLongItemsFirst with the k-tile columns of documents paired first with last
                                ///< and each pair's two CTAs placed back to back, where the played makespan allows
                                ///< it (perf::backward_launch, model/perf/backward_pairs.h; lcab_flash's Hopper
                                ///< backward). Needs each column's first and last q tile: tile counts without them
                                ///< (OuterTileCounts::first_inner) are launched unpaired.
};
std::string_view to_string(KernelScheduler scheduler);  ///< "persistent_longest_first" | "grid_waves" |
                                                        ///< "grid_costliest_first" | "grid_long_items_first" |
                                                        ///< "grid_paired_documents"
KernelScheduler parse_kernel_scheduler(std::string_view name);

/// What one CTA of the kernel computes (its work item), from the kernel's grid.
enum class KernelWorkItem : uint8_t {
  kQRowPerHead = 0,      ///< one q-tile row of one q head against its k tiles (forward kernels)
  kKColumnPerHead = 1,   ///< one k-tile column of one q head against its q tiles (FlashAttention-2/3 backward)
  kKColumnPerKvHead = 2, ///< one k-tile column of one kv head, looping over the q heads of its GQA group
                         ///< (lcab_flash backward): the item's cost is the group's q heads' tiles, in series
  kKColumnPerKvHeadAndQRowPerHead = 3,  ///< two kinds of CTA in one grid (FlexAttention's backward): per kv head
                         ///< first one k-tile column item looping over the GQA group's q heads (dK, dV), then one
                         ///< q-tile row item per q head of the group (dQ), q-tile row fastest; a dQ item's tiles
                         ///< cost KernelParams::dq_tile_fraction times a dK/dV tile of one head
};
std::string_view to_string(KernelWorkItem item);  ///< "q_row_per_head" | "k_column_per_head" | "k_column_per_kv_head"
                                                   ///< | "k_column_per_kv_head_and_q_row_per_head"
KernelWorkItem parse_kernel_work_item(std::string_view name);

/// Cost parameters of one kernel implementation for one pass, head dim and dtype.
struct KernelParams {
  std::string impl;   ///< "lcab_flash", "torch_sdpa_flash", ...
  std::string pass;   ///< "fwd" | "bwd"
  int head_dim = 128;
  std::string dtype;  ///< "bf16" | "fp16"
  TileShape tile;     ///< Bq x Bk of the kernel's q-tile rows and k tiles
  KernelScheduler scheduler = KernelScheduler::kPersistentLongestFirst;
  KernelWorkItem work_item = KernelWorkItem::kQRowPerHead;  ///< optional in files (default q_row_per_head)
  Sourced ctas_per_sm;      ///< concurrent CTAs per SM (work slots = sms x ctas_per_sm)
  Sourced full_tile_us;     ///< one slot's time for one unmasked tile
  Sourced partial_tile_us;  ///< one slot's time for one boundary tile (in-tile masking)
  Sourced row_us;           ///< per work item overhead (q-tile row: load Q, write O and lse; k column: load K, V,
                            ///< write dK, dV)
  Sourced launch_us;        ///< per kernel call
  /// Bytes streamed through HBM per q element (q row x q head x head dim) by the call's passes outside the tile
  /// loop (backward: dO.O and the fp32 dQ accumulator's zeroing and conversion); time = bytes / HBM bytes/s.
  /// Optional in files (absent: 0, no such passes).
  Sourced q_pass_bytes_per_element{0, "not given: no passes over q outside the tile loop"};
  /// Terms only some kernels have (absent in a file: the kernel has no such cost, and calibration does not fit
  /// it; present: fitted, >= 0).
  /// slice_us: per boundary tile, per slice of the mask that meets the tile's q-tile row: lcab_flash masks a
  /// boundary tile by testing every slice of its q-tile row (kernels/flash_common.cuh visible_keys/visible_rows).
  std::optional<Sourced> slice_us;
  /// kv_tile_us: per tile of a q-row item, the K/V tile's load from HBM, divided by the q heads that read the same
  /// K/V tile together (the GQA group: their items are adjacent in the launch order, so the group's later reads
  /// hit L2; MHA reads every tile from HBM).
  std::optional<Sourced> kv_tile_us;
  /// whole_sequence_band: the kernel visits every tile of a sequence (a document, or the whole mask) whose rows
  /// see keys right of their diagonal, masking them, instead of only the band's tiles (cuDNN 9.14's backward with
  /// a right-bounded sliding window). Absent: false.
  bool whole_sequence_band = false;
  /// ragged_sequences: the kernel runs a mask of packed documents as a ragged batch (cuDNN, model/cudnn_mask.h:
  /// one sequence per document, each tiled from its own first token), so its tiles are those of each document's
  /// square block on the diagonal, not of the packed mask's grid. Applies when the mask splits into square blocks
  /// on the diagonal that no slice crosses (as fit_cudnn_mask cuts it, model/cudnn_mask.h); any other mask is one
  /// sequence.
  /// A call's cost then needs its slices (tile_counts_determine_cost is false). Absent: false.
  bool ragged_sequences = false;
  /// kv_expand_bytes_per_element: bytes through HBM per q element (q row x q head x head dim x batch) when the
  /// call expands K and V to the q heads first, charged only under GQA (heads > kv_heads) at the HBM bandwidth, like
  /// q_pass_bytes_per_element. PyTorch SDPA's memory-efficient backend has no GQA: a GQA call repeats K and V to Hq
  /// heads (repeat_interleave writes 2 x 2 B per q element and reads 4 / g), and its backward sums them back.
  std::optional<Sourced> kv_expand_bytes_per_element;
  /// tail_pass_bytes_per_element: bytes through HBM per q element (q row x q head x head dim x batch) of a pass
  /// that CTAs of the kernel's own grid run after its tile items: lcab_flash's Hopper backward converts its fp32 dQ
  /// accumulator so (reads 4 B, writes 2 B; model/perf/backward_tail.h). The pass is that many chunks of
  /// perf::backward_tail_chunk_rows rows of one kv head's q heads, queued after the items on the slots that free up
  /// first, each costing its bytes at one slot's share of the HBM bandwidth (all slots converting at once stream at
  /// the full bandwidth), so that it fills the idle slots of the last wave. A chunk's wait for the last items of its
  /// kv head is not modelled. Grid schedulers only. Absent: no such pass.
  std::optional<Sourced> tail_pass_bytes_per_element;
  /// Sustained-load clocks: a call whose GPU time is T (launch, busiest slot, passes) takes
  ///   T x (1 + sustained_slowdown x r T / (1 + r T)),   r = sustained_rate_per_us (1 / the time constant),
  /// i.e. long calls run at clocks lowered by up to the fraction sustained_slowdown / (1 + sustained_slowdown)
  /// (the power limit under sustained tensor-core load), short ones at boost clocks. Both >= 0; the two come
  /// together (either absent: no such term).
  std::optional<Sourced> sustained_slowdown;
  std::optional<Sourced> sustained_rate_per_us;
  /// host_floor_us: a call takes at least this long: the host-side dispatch of the call (PyTorch: the Python and
  /// dispatcher path; compiled FlexAttention: guards and the Triton launcher) when the GPU would finish its work
  /// sooner and waits for the host (records timed with CUDA events around the call).
  std::optional<Sourced> host_floor_us;
  /// dq_tile_fraction: for KernelWorkItem::kKColumnPerKvHeadAndQRowPerHead, a dQ item's tile (full or boundary)
  /// costs this fraction of the same tile in a dK/dV item (per q head); >= 0. FlexAttention's backward recomputes
  /// Q K^T and dO V^T in both kinds of CTA and does one more product (dQ = dS K) in the dQ CTA, two (dV, dK) in the
  /// dK/dV one. Absent: 0 (the dQ items cost their row_us only).
  std::optional<Sourced> dq_tile_fraction;
  /// unmasked_tile_us: what an unmasked tile costs, instead of full_tile_us, in a call whose mask masks nothing
  /// (every head mask's area is Sq x Sk); >= 0. Compiled FlexAttention's kernel is one function of its mask_mod: the
  /// peers' mask_mod of `full` reads a one-cell block table that compiles to a constant, every other mask's reads
  /// per-element tables, and at hd64 (4 warps on 128 x 128 blocks) the kernel with the table code runs even its
  /// unmasked blocks about 1.4x slower (H100 records: 1.32 against 1.9 us per block). Absent: full_tile_us.
  std::optional<Sourced> unmasked_tile_us;
  /// slices_by_table_width: slice_us counts, per boundary tile, the intervals the mask_mod tests for every element
  /// instead of the slices meeting the tile's q-tile row: the peers' FlexAttention mask_mod (torch_peers.py
  /// MaskTables.visible) tests every slot of its lo/hi interval table, i.e. the call's largest number of slices
  /// covering one row (over all rows and head masks), and a mask of block-aligned full slices (at least 64-token
  /// blocks: a block table) tests one. A call's cost then needs its slices (tile_counts_determine_cost is false).
  /// Absent: false.
  bool slices_by_table_width = false;
  /// Interval tests that spill out of registers (with slices_by_table_width; the two come together, both >= 0): the
  /// compiled mask_mod holds the lo/hi values of every table interval for the thread's rows at once, next to the
  /// score and output accumulators; beyond register_slices intervals (given: the registers a thread has left,
  /// from the kernel's tile and warps) each further interval of the table width W costs spilled_slice_us more per
  /// boundary tile: slice_us x W + spilled_slice_us x max(0, W - register_slices). Absent: no such cost.
  std::optional<Sourced> register_slices;
  std::optional<Sourced> spilled_slice_us;
  bool has_slice_spills() const { return slices_by_table_width && register_slices && spilled_slice_us; }
  /// idle_half_tile_us: what a boundary tile costs, instead of partial_tile_us, when one of its two key halves
  /// (tile.k / 2 keys each) meets no query of its q tile; >= 0, tile.k even. lcab_flash's Hopper backward gives each
  /// consumer warpgroup one key half of a 128-key tile and skips the products of an idle half
  /// (kernels/flash_work.h backward_idle_halves_built): the diagonal's tile of a causal block whose q tile ends in
  /// the first half of its keys, a window's far edge. Per outer tile that is 2 x touched tiles - the touched tiles
  /// of the tiling with tile.k / 2 keys; the counters find them where a row's merged run of touched half tiles
  /// starts or ends inside a tile (model/mask_tiling.h append_idle_half_tiles). Where a list is
  /// masked by run masks the kernel marks idle halves per visit of a tile instead (hd 64's block-sparse lists):
  /// the model counts them per tile. Absent: idle halves cost partial_tile_us.
  std::optional<Sourced> idle_half_tile_us;
  bool has_idle_halves() const { return idle_half_tile_us.has_value(); }
  bool has_sustained_clocks() const { return sustained_slowdown && sustained_rate_per_us; }
  nlohmann::json fit = nlohmann::json::object();  ///< calibration statistics (kept verbatim)
  /// Whether calibration fitted this entry to measurements (a non-empty `fit`, as lcab-calibrate writes); otherwise
  /// it is the datasheet layer's (model/perf/derive_datasheet_profiles.py: solved from a few figures, or assumed).
  bool fitted() const { return !fit.empty(); }
};

enum class CollectiveOp : uint8_t { kSendRecv = 0, kAllToAll = 1, kAllGather = 2, kReduceScatter = 3, kAllReduce = 4 };
std::string_view to_string(CollectiveOp op);  ///< "send_recv", "all_to_all", "all_gather", "reduce_scatter", "all_reduce"
CollectiveOp parse_collective_op(std::string_view name);
inline constexpr CollectiveOp kAllCollectiveOps[] = {CollectiveOp::kSendRecv, CollectiveOp::kAllToAll,
                                                     CollectiveOp::kAllGather, CollectiveOp::kReduceScatter,
                                                     CollectiveOp::kAllReduce};

enum class LinkClass : uint8_t { kIntraNode = 0, kInterNode = 1 };
std::string_view to_string(LinkClass link);  ///< "intra_node" | "inter_node"
LinkClass parse_link_class(std::string_view name);

struct CollectiveParams {
  CollectiveOp op = CollectiveOp::kSendRecv;
  LinkClass link = LinkClass::kIntraNode;
  Sourced latency_us;
  Sourced bytes_per_s;  ///< bus bandwidth as defined in the header comment
  nlohmann::json fit = nlohmann::json::object();
  /// NCCL's low-latency protocol line (header comment); ll_bytes_per_s = 0: none.
  Sourced ll_latency_us{0, "not given: one protocol line"};
  Sourced ll_bytes_per_s{0, "not given: one protocol line"};
  bool has_low_latency_line() const { return ll_bytes_per_s.value > 0; }
  /// Extra Simple-protocol time per bus byte of a 2-member group, scaled by 2 / members (header comment).
  Sourced small_group_us_per_byte{0, "not given: bus bandwidth independent of the group size"};
  /// The Simple line's microseconds per bus byte for a group of `members` ranks (>= 2).
  double simple_us_per_byte(double members) const {
    return 1e6 / bytes_per_s.value + small_group_us_per_byte.value * 2.0 / members;
  }
};

struct Provenance {
  std::string kind = "datasheet";  ///< "datasheet" | "calibrated"
  std::string description;
  std::vector<std::string> inputs;   ///< measurement files a fit used
  std::vector<std::string> devices;  ///< devices those measurements ran on
  std::string date;                  ///< ISO 8601
  std::string git_sha;
  nlohmann::json residuals = nlohmann::json::object();
};

struct HardwareProfile {
  std::string name;
  Provenance provenance;
  GpuSpec gpu;
  NodeSpec node;
  NetworkSpec network;
  /// Compute that runs while communication runs on the same GPU takes this factor longer (>= 1).
  Sourced overlap_slowdown;
  /// Bytes per second the CP executor's elementwise passes achieve (merging partial outputs, accumulating
  /// gradients, zeroing, all-to-all packing and conversion: cp_item_passes.h, a2a_staging.h, memory ops); small
  /// strided kernels reach less than the HBM peak. Optional in files (absent: 0, meaning gpu.hbm_bytes_per_s).
  Sourced executor_pass_bytes_per_s{0, "not given: the HBM bandwidth"};
  /// executor_pass_bytes_per_s, or the HBM bandwidth when not given.
  double executor_pass_rate() const {
    return executor_pass_bytes_per_s.value > 0 ? executor_pass_bytes_per_s.value : gpu.hbm_bytes_per_s.value;
  }
  std::vector<KernelParams> kernels;
  std::vector<CollectiveParams> collectives;

  /// Throws lcab::Error listing the (impl, pass, head_dim, dtype) entries present when there is no match.
  const KernelParams& kernel(std::string_view impl, std::string_view pass, int64_t head_dim,
                             std::string_view dtype) const;
  /// The same entry, or nullptr when there is none.
  const KernelParams* find_kernel(std::string_view impl, std::string_view pass, int64_t head_dim,
                                  std::string_view dtype) const;
  /// Distinct implementation names with kernel entries, in file order.
  std::vector<std::string> kernel_impls() const;
  /// Throws lcab::Error when the profile has no entry for (op, link).
  const CollectiveParams& collective(CollectiveOp op, LinkClass link) const;
  int sms() const { return static_cast<int>(gpu.sms.value); }
};

/// What predictions with `impl` at (dtype, head_dim) rest on, in one line: per pass whether its kernel entry was
/// fitted to measurements (a non-empty `fit`, as lcab-calibrate writes) or comes from the datasheet layer, and per
/// link class whether its collectives were: "lcab_flash bf16 hd 128: fwd, bwd fitted to measurements; collectives:
/// intra-node fitted to measurements, inter-node from the datasheet" (passes or links of one source are listed
/// together). A pass without an entry reads "fwd (no entry)"; a link class with some of its collectives fitted,
/// "partly fitted (N of M collectives)".
/// A built-in profile's provenance says "datasheet" for the layer it starts from even where most of what a plan uses
/// was fitted, so that kind alone does not tell a reader.
std::string describe_fit_basis(const HardwareProfile& profile, std::string_view impl, std::string_view dtype,
                               int64_t head_dim, const std::vector<std::string>& passes);

/// Checks every value (positive where it must be, overlap_slowdown >= 1, no NaN, no duplicate entries, an
/// entry for every collective op x link class); throws lcab::Error naming the first bad field.
void validate_profile(const HardwareProfile& profile);

nlohmann::json to_json(const HardwareProfile& profile);
/// Parses and validates; throws lcab::Error naming the missing or malformed field ("kernels[3].row_us: ...").
HardwareProfile profile_from_json(const nlohmann::json& j);
HardwareProfile load_profile(const std::string& path);
/// Writes pretty JSON (2-space indent) ending with a newline.
void save_profile(const HardwareProfile& profile, const std::string& path);

/// Names of the built-in profiles ("h100_sxm", "h200_sxm"), embedded at build time from data/profiles/.
std::vector<std::string> builtin_profile_names();
/// A built-in profile by name; throws lcab::Error listing the valid names.
const HardwareProfile& builtin_profile(std::string_view name);
/// A built-in profile name or a path to a profile JSON file.
HardwareProfile resolve_profile(const std::string& name_or_path);

}  // namespace lcab::perf
