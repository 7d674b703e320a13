#!/usr/bin/env python3
"""Writes the built-in profiles data/profiles/h100_sxm.json and h200_sxm.json (lcab.profile/1, see
model/perf/profile.h) in two layers:

1. datasheet and ANCHORS.md figures: kernel parameters solved from measured TFLOP/s under the model's own
   assumptions (model/perf/kernel_cost.h), so that the model reproduces those figures at 16K;
2. then every fitted group of the committed calibrated profiles (data/profiles/<gpu>.calibrated.json, written by
   lcab-calibrate from the committed measurements) replaces the entry it fitted: kernel entries on the same GPU,
   the intra-node collectives, the overlap slowdown and the CP executor's pass bandwidth (fitted on H200; HGX H100 has the same NVLink 4 / NVSwitch
   fabric and NCCL, so the H100 profile takes them too, saying so). Pass --datasheet-only to skip this layer.

The first layer alone is also written as <gpu>.datasheet.json: lcab-calibrate starts from it (--base), so that a
calibration does not depend on earlier fits that the built-in profiles carry.

Every number states where it comes from.

Usage: model/perf/derive_datasheet_profiles.py [--datasheet-only] [OUT_DIR]   (default: data/profiles)
"""
import json
import math
import os
import sys

ANCHORS = "ANCHORS.md"
SMS = 132
S = 16384          # the sequence length whose measurements the kernel parameters reproduce
HEADS = 64
HD = 128
PARTIAL_OVER_FULL = 1.5  # a boundary tile costs 1.5 full tiles (in-tile masking), an assumption
LAUNCH_US = 4.0

def sourced(value, source):
    return {"value": value, "source": source}

# impl: (tile fwd, tile bwd, scheduler, {gpu: figures}, source text). Figures are (full fwd, full bwd, causal fwd,
# causal bwd) TFLOP/s at hd 128, which the other head dims take scaled; or {head_dim: (those four, source text,
# band)} where they were measured per head dim (the head dims not listed take the hd 128 figures, scaled). band is
# None or (ms, source text): the forward's time on band1 at BAND_S, each of whose 128-row blocks sees its own 128 keys;
# it gives the forward's row_us, and causal then its partial_tile_us (solve_forward_with_band).
H100_SDPA_FLASH = (365, 315, 315, 316)
LCAB_FLASH_MMA_SYNC_H100 = (309, 204, 308, 200)
# lcab_flash_sm80 on one H200 with main 7a83a8c's binaries, whose mma.sync kernels main still runs (the dK/dV
# kernels' SASS of de5f10a is instruction-identical; the forward unchanged since 7d314c7): 16K, 64 / 8 heads, bf16,
# 3 warm-ups and 7 repetitions, beside SDPA's FlashAttention-2 in the same call.
MMA_SYNC_H200_RECORDS = "data/measurements/h200/sm80-bwd-hd64-128-queries-2026-12-04/final/lcab-measure.jsonl"
MMA_SYNC_H200_BAND_RECORDS = "data/measurements/h200/sm80-chunk-pair-addresses-2026-12-03/fwd/ab-cand.jsonl"
LCAB_FLASH_MMA_SYNC_H200 = {
    128: ((370.4, 289.7, 365.9, 278.5),
          "lcab_flash_sm80 measured here on one H200 (main 7a83a8c's binaries, the mma.sync kernels of 2026-12-04), "
          "hd128, 16K, 64/8 heads: full 370.4/289.7, causal 365.9/278.5 TFLOP/s fwd/bwd (" + MMA_SYNC_H200_RECORDS +
          "); tiles from kernels/flash_tiles.h (fwd 128x64, bwd 64x128); rows costliest first",
          (0.6485, "and its forward on band1 at 32K: 0.6485 ms (the mean of two rounds' medians, " +
           MMA_SYNC_H200_BAND_RECORDS + ", the adopted build of the forward main runs)")),
    64: ((321.3, 252.7, 319.7, 255.2),
         "lcab_flash_sm80 measured here on one H200 (main 7a83a8c's binaries, the mma.sync kernels of 2026-12-04), "
         "hd64, 16K, 64/8 heads: full 321.3/252.7, causal 319.7/255.2 TFLOP/s fwd/bwd (" + MMA_SYNC_H200_RECORDS +
         "); tiles from kernels/flash_tiles.h (fwd 128x64, bwd 128x128 at hd64); rows costliest first",
         (0.448, "and its forward on band1 at 32K: 0.448 ms (both rounds' medians, " + MMA_SYNC_H200_BAND_RECORDS +
          ")")),
}
LCAB_FLASH_H100 = (588.0, 492.7, 625.2, 448.4)
SWEEP = "data/measurements/h100/lcab-measure-kernel-sweep-2026-11-22.jsonl"
BWD_SWEEP = "data/measurements/h100/lcab-measure-kernel-bwd-sweep-2026-11-22.jsonl"
IMPLS = {
    "lcab_flash": ((128, 128), (64, 128), "persistent_longest_first",
                   {"h100": LCAB_FLASH_H100, "h200": LCAB_FLASH_H100},
                   "README 'Attention kernels' measured here: lcab_flash (Hopper path) on H100, hd128, 16K, 64/8 "
                   "heads: full 588.0/492.7, causal 625.2/448.4 TFLOP/s fwd/bwd (" + SWEEP + " fwd, " + BWD_SWEEP +
                   " bwd); tiles from kernels/flash_tiles.h for sm_90 (fwd 128x128, bwd 64x128); items costliest "
                   "first"),
    "lcab_flash_sm80": ((128, 64), (64, 128), "persistent_longest_first",
                        {"h100": LCAB_FLASH_MMA_SYNC_H100, "h200": LCAB_FLASH_MMA_SYNC_H200},
                        "README 'Attention kernels' measured here: lcab_flash's mma.sync kernels on H100 (then the only "
                        "path), hd128, 16K, 64/8 heads: full 309/204, causal 308/200 TFLOP/s fwd/bwd (data/"
                        "measurements/h100/kernel-bench-2026-11-22.jsonl); tiles from kernels/flash_tiles.h (fwd "
                        "128x64, bwd 64x128); rows costliest first"),
    "torch_sdpa_flash": ((128, 64), (64, 128), "grid_waves",
                         {"h100": H100_SDPA_FLASH, "h200": H100_SDPA_FLASH},
                         ANCHORS + " measured here: SDPA FlashAttention-2, H100, hd128, 16K: full 365/315, "
                         "causal 315/316 TFLOP/s fwd/bwd"),
    "torch_sdpa_cudnn": ((128, 128), (128, 128), "grid_waves",
                         {"h100": (599, 552, 602, 536), "h200": (599, 552, 602, 536)},
                         ANCHORS + " measured here: SDPA cuDNN, H100, hd128, 16K: full 599/552, causal 602/536 "
                         "TFLOP/s fwd/bwd"),
    "torch_sdpa_efficient": ((32, 128), (64, 64), "grid_waves",
                             {"h100": (184, 139, 178.6, 134.0), "h200": (184, 139, 178.6, 134.0)},
                             ANCHORS + " measured here: SDPA memory-efficient, H100, hd128, 16K: full 184/139 "
                             "TFLOP/s fwd/bwd; causal 178.6/134.0 from data/measurements/h100/"
                             "torch-peers-efficient-flex-2026-11-22.jsonl (K/V repeated to 64 heads); tiles: "
                             "assumption from the xformers/cutlass kernels (forward 32 x 128 above head dim 64, "
                             "backward 64 x 64)"),
    "torch_flex": ((128, 128), (128, 128), "grid_waves",
                   {"h100": (493, 432, 421, 391), "h200": (493, 432, 421, 391)},
                   ANCHORS + " measured here: FlexAttention, H100, hd128, 16K: full 493/432, causal 421/391 TFLOP/s "
                   "fwd/bwd"),
    "cudnn": ((128, 128), (128, 128), "grid_waves",
              {"h100": (622.1, 552.4, 676.6, 531.8), "h200": (702, 612, 673, 579)},
              "H100: lcab's cudnn implementation (cuDNN 9.14.0 loaded) measured here, hd128, 16K, 64/8 heads: full "
              "622.1/552.4, causal 676.6/531.8 TFLOP/s fwd/bwd (" + SWEEP + "); H200: " + ANCHORS + " published, "
              "cuDNN 9.19 GQA 64/8: full 702/612, causal 673/579"),
}


# Backward passes over q outside the tile loop, bytes per q element (row x head x head dim) at a 2-byte dtype:
# dO.O (reads dO and O: 2 + 2), the fp32 dQ accumulator zeroed (4), then read (4) and written as dtype (2).
BWD_Q_PASS_BYTES = {
    "lcab_flash_sm80": (14, "kernels/flash_backward.cu: delta_kernel reads dO and O (2 + 2 B), the fp32 dQ "
                            "accumulator is zeroed (4 B) and convert_dq_kernel reads it (4 B) and writes dQ (2 B) per q "
                            "element, three launches around the dK/dV kernel"),
    "lcab_flash": (4, "kernels/flash backward: delta_kernel reads dO and O (2 + 2 B) per q element before the dK/dV "
                      "grid; the fp32 dQ accumulator is zeroed once when allocated, and that grid's tail converts it "
                      "and writes zeros back for the next call (tail_pass_bytes_per_element), since the tail's "
                      "zeroing of 2026-11-25 (until then 8 B here: the accumulator zeroed, 4 B, before each grid); "
                      "the measured kernels of data/measurements/h200x2/cp-p2-current-2026-11-22.jsonl (delta + "
                      "convert 0.19 ms at 16K x 32 heads x hd128) matched the 14 B per element of the three passes "
                      "at 4.8 TB/s"),
    "torch_sdpa_flash": (14, "FlashAttention-2 backward (flash_bwd_launch_template.h): dot(dO, O) preprocessing "
                             "(2 + 2 B), fp32 dQ accumulator zeroed (4 B) and converted (4 + 2 B) per q element"),
}


def full_and_partial_tiles(tile):
    """Full and boundary tiles of the causal mask at S=16K under `tile` (q x k)."""
    bq, bk = tile
    full_tiles = partial_tiles = 0
    for r in range(S // bq):
        q_lo, q_hi = r * bq, (r + 1) * bq - 1
        for c in range(S // bk):
            k_lo, k_hi = c * bk, (c + 1) * bk - 1
            if k_lo > q_hi:
                continue
            if k_hi <= q_lo:
                full_tiles += 1
            else:
                partial_tiles += 1
    return full_tiles, partial_tiles


# The band the forward's row cost is solved from: at BAND_S, every 128-row block of queries sees its own 128 keys
# (scripts/ab_device_call.sh band1), so each q-row item holds 128 / tile_k full tiles and little else.
BAND_S = 32768
BAND_BLOCK = 128


def solve_forward_with_band(tile, tflops_full, tflops_causal, band_ms, head_dim, measured_head_dim):
    """The forward's per-slot costs (us) from three measurements at measured_head_dim, scaled to head_dim: full at
    16K and the band at BAND_S give full_tile_us and row_us (every item of each is alike: whole waves), and causal
    at 16K then gives partial_tile_us, instead of the PARTIAL_OVER_FULL assumption. Returns (full, partial, row)."""
    bq, bk = tile
    assert bq == BAND_BLOCK and BAND_BLOCK % bk == 0, "the band's rows are one q tile of whole k tiles"
    rows, cols = S // bq, S // bk
    waves_full = math.ceil(rows * HEADS / SMS)
    waves_band = math.ceil(BAND_S // bq * HEADS / SMS)
    band_tiles = BAND_BLOCK // bk
    time_full_us = 4.0 * S * S * HEADS * measured_head_dim / (tflops_full * 1e12) * 1e6 - LAUNCH_US
    time_causal_us = 4.0 * (S * (S + 1) / 2) * HEADS * measured_head_dim / (tflops_causal * 1e12) * 1e6 - LAUNCH_US
    time_band_us = band_ms * 1e3 - LAUNCH_US
    # full: waves_full (cols c + row) = time_full;  band: waves_band (band_tiles c + row) = time_band
    a1, b1, a2, b2 = waves_full * cols, waves_full, waves_band * band_tiles, waves_band
    det = a1 * b2 - a2 * b1
    c_full = (time_full_us * b2 - time_band_us * b1) / det
    row = (a1 * time_band_us - a2 * time_full_us) / det
    # causal (longest-first: balanced): HEADS / SMS (F c + P partial + rows row) = time_causal
    full_tiles, partial_tiles = full_and_partial_tiles(tile)
    partial = (time_causal_us * SMS / HEADS - full_tiles * c_full - rows * row) / partial_tiles
    assert c_full > 0 and row >= 0 and partial > 0, "the three measurements give no non-negative costs"
    scale = head_dim / measured_head_dim
    return c_full * scale, partial * scale, row * scale


def solve_kernel(tile, tflops_full, tflops_causal, flops_factor, head_dim, measured_head_dim=HD):
    """Per-slot costs (us) that make the kernel model give the measured TFLOP/s at S=16K, 64 heads and
    measured_head_dim, scaled to head_dim by head_dim / measured_head_dim.

    partial_tile_us = PARTIAL_OVER_FULL x full_tile_us (assumption); full_tile_us and row_us solve the two
    equations time(full) = measured and time(causal) = measured. Returns (full, partial, row, row_clamped).
    """
    bq, bk = tile
    rows = S // bq
    cols = S // bk
    items = rows * HEADS
    waves = math.ceil(items / SMS)
    time_full_us = flops_factor * 4.0 * S * S * HEADS * measured_head_dim / (tflops_full * 1e12) * 1e6 - LAUNCH_US
    # causal at S=16K: per q-tile row the tiles left of the diagonal band are full, the band is partial.
    full_tiles, partial_tiles = full_and_partial_tiles(tile)
    time_causal_us = (flops_factor * 4.0 * (S * (S + 1) / 2) * HEADS * measured_head_dim / (tflops_causal * 1e12) * 1e6
                      - LAUNCH_US)
    # full:   waves * (cols * c + row) = time_full                   (equal items: whole waves)
    # causal: HEADS / SMS * ((F + k P) c + rows * row) = time_causal   (longest-first: balanced)
    a1, b1, t1 = waves * cols, waves, time_full_us
    a2 = HEADS / SMS * (full_tiles + PARTIAL_OVER_FULL * partial_tiles)
    b2 = HEADS / SMS * rows
    t2 = time_causal_us
    det = a1 * b2 - a2 * b1
    c_full = (t1 * b2 - t2 * b1) / det
    row = (a1 * t2 - a2 * t1) / det
    clamped = row < 0
    if clamped:  # causal no slower per FLOP than full: no row overhead visible; fit full alone
        row = 0.0
        c_full = t1 / a1
    scale = head_dim / measured_head_dim
    return c_full * scale, PARTIAL_OVER_FULL * c_full * scale, row * scale, clamped


# What one CTA computes (model/perf/profile.h KernelWorkItem), from the kernels' grids.
WORK_ITEMS = {
    ("lcab_flash", "bwd"): ("k_column_per_kv_head", "kernels/hopper/flash_backward_sm90.cu: grid of k tiles x kv "
                                                    "heads x batch; each CTA loops over the q heads of its GQA group"),
    ("lcab_flash_sm80", "bwd"): ("k_column_per_kv_head", "kernels/flash_backward.cu: grid of k tiles x batch x kv "
                                                         "heads; each CTA loops over the q heads of its GQA group"),
    ("torch_sdpa_flash", "bwd"): ("k_column_per_head", "FlashAttention-2 backward: grid (k blocks, batch, heads)"),
    ("torch_flex", "bwd"): ("k_column_per_kv_head_and_q_row_per_head",
                            "torch/_inductor/kernel/flex_attention.py flex_attention_backward_grid (PyTorch 2.x; the records ran 2.11): "
                            "(cdiv(Q_LEN, BLOCK_M2) x GQA group + cdiv(KV_LEN, BLOCK_N1), 1, batch x kv heads); "
                            "pids below the k block count compute dK, dV of one k block looping over the group's "
                            "q heads, the others dQ of one q block of one q head"),
    ("torch_sdpa_efficient", "bwd"): ("k_column_per_head", "memory-efficient (cutlass) backward: a CTA per key "
                                                           "block and head, looping over query blocks"),
}


# How a kernel hands its CTAs to the SMs where it differs from its implementation's scheduler (IMPLS).
SCHEDULERS = {
    ("lcab_flash", "bwd"): "grid_long_items_first",  # kernels/hopper/flash_backward_sm90.cu: one CTA per (k tile,
                                                     # kv head, batch), k tiles of each kv head costliest first,
                                                     # long ones of every head first (model/perf/grid_launch_order.h)
}

# Terms only some kernels have (model/perf/profile.h); each starts at 0 and is fitted by lcab-calibrate.
# Boundary tiles pay per slice (interval) of their q-tile row: lcab_flash tests every slice of the row
# (kernels/flash_common.cuh); FlexAttention evaluates its mask_mod on every element of a partial block, and the
# peers' mask_mod for interval masks tests each of the row's key intervals (measure/peers/torch_peers.py
# MaskTables.visible).
SLICE_TERM = {
    "lcab_flash": "the kernels mask a boundary tile by testing every slice of its row (kernels/flash_common.cuh "
                  "visible_keys, visible_rows)",
    "torch_flex": "FlexAttention evaluates mask_mod on every element of a partial block; the peers' mask_mod for "
                  "interval masks tests the row's key intervals (measure/peers/torch_peers.py MaskTables.visible)",
}
KV_TILE_TERM = (("lcab_flash", "fwd"),)  # q-row items stream K/V per q head (kernels/hopper/flash_forward_sm90.cu)
WHOLE_SEQUENCE_BAND = (("cudnn", "bwd"),)  # cuDNN 9.14's backward visits every tile of a right-bounded band
# lcab's cuDNN backend runs packed documents as a ragged batch, one sequence per document (kernels/cudnn_attention.cpp,
# model/cudnn_mask.h): the forward's records follow each document tiled from its own first token (H100 in-sample
# 4.98 / 11.24 -> 3.75 / 7.88 MAPE / p90). The backward's records follow the packed grid better (5.36 / 10.98 against
# 5.61 / 11.88 tiled per document; how cuDNN's backward walks a ragged batch is not known here), so it keeps it.
RAGGED_SEQUENCES = (("cudnn", "fwd"),)
# PyTorch SDPA's memory-efficient backend has no GQA: a GQA call repeats K/V to the q heads (torch_peers.py
# kv_repeated; PyTorch raises "No available kernel" for enable_gqa on it).
KV_EXPAND_TERM = (("torch_sdpa_efficient", "fwd"),)  # the backward's records show no such cost (fitted 0)
# Sustained-load clocks: forward kernels at near-peak tensor throughput lose clock speed over long calls (per-tile
# time of lcab_flash, FlashAttention-2 and cuDNN forward grows 10-15% from 8K to 64K at the same mask and shape,
# MHA and GQA alike for FlashAttention-2, whose K/V traffic does not change with S).
SUSTAINED_CLOCKS = ("fwd",)
# lcab_flash's backward shows it too (per-tile time at 64K 8-13% above the fit without it, GQA and MHA; a kfold of
# its own sweep: 5.41 / 12.51 -> 4.63 / 11.61 MAPE / p90 with the term).
SUSTAINED_CLOCKS_ALSO = (("lcab_flash", "bwd"),)
# The time constant of the sustained-load slowdown, one per GPU: lcab_flash full GQA hd128 on H100 takes 1.75,
# 1.88, 1.97, 2.02 us per tile at 8, 16, 32, 64K (3.5 to 256 ms calls), which T (1 + s T / (T + tau)) follows with
# tau near 10 ms (s 0.25); assumed the same on H200.
SUSTAINED_TAU_US = 10000.0
# Records timed with CUDA events around a PyTorch call include the host's dispatch where the GPU waits for it:
# compiled FlexAttention's forward call (guards, block mask, Triton launcher) outlasts its GPU work at 1K, and so does
# its backward (autograd's engine and the compiled backward graph's dispatch: 1K backward calls take 0.3-0.6 ms
# whatever the mask). Under the earlier q-row backward model a fitted launch_us of 180-320 us stood in for that floor
# (and a floor made held-out errors worse, 11.1 / 32.0 against 10.4 / 29.4); with the backward's own grid the fitted
# launch is 9-26 us and the floor takes 1K (flex-only kfold 8.80 / 36.78 -> 6.50 / 22.22). Not SDPA (1K times scatter
# by +-50 us either way). Since 2026-11-23 the peers' records time the GPU's own work (torch_peers.py --time-basis
# kernel_sum), which the host's dispatch does not delay: fitted to those, the floor is the shortest call on the GPU
# (34-84 us on H100, or left out where no record informs it) and the host's part stays in extra.event_time_ms.
HOST_FLOOR = (("torch_flex", "fwd"), ("torch_flex", "bwd"))
# FlexAttention's backward: a dQ CTA's block costs a fraction of a dK/dV CTA's (both recompute Q K^T and dO V^T;
# dQ does one more product, dK/dV two).
DQ_TILE_FRACTION = (("torch_flex", "bwd"),)
# Compiled FlexAttention's forward with a mask_mod that masks nothing (the peers' `full`: a one-cell block table, a
# constant after compilation) runs its blocks faster than the same kernel compiled with a per-element table lookup
# (H100 hd64: 1.32 against about 1.9 us per 128 x 128 block at 32K; hd128: about the same).
UNMASKED_TILE = (("torch_flex", "fwd"),)
# FlexAttention's mask_mod (torch_peers.py MaskTables.visible) tests every slot of its interval table on every element
# of a boundary block: slice_us counts the table's width, not the slices meeting the block's row.
SLICES_BY_TABLE_WIDTH = ("torch_flex",)
# The compiled mask_mod holds the lo/hi values of every table interval for a thread's rows at once; beyond what the
# registers hold next to the score (S) and output (O) accumulators, the interval tests spill. PyTorch's H100
# defaults for the forward (torch/_inductor/kernel/flex_attention.py _h100_default_config, bf16): hd64 128 x 128
# blocks on 4 warps: S 128 and O 64 fp32 registers per thread, 4 rows per thread (8 registers per interval), about
# 40 of 255 left: 5 intervals; hd128 128 x 64 on 8 warps: S 32, O 64, 2 rows per thread (4 per interval), about 139
# left: 34 intervals. An estimate from the layout, not read from the compiled kernel.
REGISTER_SLICES = {("torch_flex", "fwd", 64): 5, ("torch_flex", "fwd", 128): 34}
# lcab_flash's Hopper backward gives each consumer warpgroup one 64-key half of a 128-key tile and skips the products
# of a half no query of the q tile sees (kernels/flash_work.h backward_idle_halves_built: hd 64, and hd 128 walking
# slices; hd 256 walks 64-key tiles). Such a boundary tile is charged idle_half_tile_us instead of partial_tile_us;
# full_tile_us until calibrated (on an H100 a 32K band's step with an idle half took as long as a whole one at hd 128,
# data/measurements/h100/bwd-idle-half-steps-2026-11-24/).
IDLE_HALVES = {("lcab_flash", "bwd", 64), ("lcab_flash", "bwd", 128)}


def optional_terms(impl, pass_name, head_dim, full_tile_us):
    terms = {}
    if impl in SLICE_TERM and impl in SLICES_BY_TABLE_WIDTH:
        terms["slice_us"] = sourced(0.0, "per boundary block and interval of the mask_mod's table (the call's most "
                                         "slices covering one row; 1 for a block table): the peers' mask_mod tests "
                                         "every interval on every element (measure/peers/torch_peers.py "
                                         "MaskTables.visible); 0 until calibrated")
        terms["slices_by_table_width"] = True
    elif impl in SLICE_TERM:
        terms["slice_us"] = sourced(0.0, "per boundary tile and slice meeting its q-tile row: the kernels mask a "
                                         "boundary tile by testing every slice of its row (kernels/flash_common.cuh "
                                         "visible_keys, visible_rows); 0 until calibrated")
    if (impl, pass_name, head_dim) in REGISTER_SLICES:
        terms["register_slices"] = sourced(REGISTER_SLICES[(impl, pass_name, head_dim)],
                                           "mask-table intervals a thread holds in registers next to its S and O "
                                           "accumulators, from PyTorch's H100 default tile and warps "
                                           "(model/perf/derive_datasheet_profiles.py REGISTER_SLICES; an estimate)")
        terms["spilled_slice_us"] = sourced(0.0, "per boundary block and interval beyond register_slices (spilled "
                                                 "interval tests); 0 until calibrated")
    if (impl, pass_name, head_dim) in IDLE_HALVES:
        terms["idle_half_tile_us"] = sourced(round(full_tile_us, 6), "a boundary tile with one key half that no query "
                                             "of its q tile sees: the kernel skips that half's products "
                                             "(kernels/flash_work.h backward_idle_halves_built); full_tile_us until "
                                             "calibrated")
    if (impl, pass_name) in UNMASKED_TILE:
        terms["unmasked_tile_us"] = sourced(round(full_tile_us, 6), "an unmasked tile in a call whose mask masks "
                                            "nothing (the mask_mod compiles to a constant): full_tile_us until "
                                            "calibrated")
    if (impl, pass_name) in KV_TILE_TERM:
        terms["kv_tile_us"] = sourced(0.0, "per tile, the K/V tile's load from HBM shared by the q heads of a GQA "
                                           "group (adjacent items: kernels/hopper/flash_forward_sm90.cu decode_item, "
                                           "head fastest); 0 until calibrated")
    if (impl, pass_name) in WHOLE_SEQUENCE_BAND:
        terms["whole_sequence_band"] = True
    if (impl, pass_name) in RAGGED_SEQUENCES:
        terms["ragged_sequences"] = True
    if pass_name == "bwd" and impl in BWD_TAIL_PASS_BYTES:
        terms["tail_pass_bytes_per_element"] = sourced(*BWD_TAIL_PASS_BYTES[impl])
    if (impl, pass_name) in KV_EXPAND_TERM:
        terms["kv_expand_bytes_per_element"] = sourced(0.0, "bytes per q element of K/V repeated to the q heads under "
                                                            "GQA (the backend has no GQA); 0 until calibrated")
    if pass_name in SUSTAINED_CLOCKS or (impl, pass_name) in SUSTAINED_CLOCKS_ALSO:
        terms["sustained_slowdown"] = sourced(0.0, "slowdown of long calls at sustained tensor-core load (lower "
                                                   "clocks); 0 until calibrated")
        terms["sustained_rate_per_us"] = sourced(1.0 / SUSTAINED_TAU_US,
                                                 "1 / the time constant of the sustained-load slowdown, 10 ms: "
                                                 "lcab_flash full GQA hd128 per-tile times at 8-64K on H100 "
                                                 "(model/perf/derive_datasheet_profiles.py SUSTAINED_TAU_US)")
    if (impl, pass_name) in HOST_FLOOR:
        terms["host_floor_us"] = sourced(0.0, "shortest time of an event-timed PyTorch call: the host's dispatch, "
                                              "which the GPU waits for; 0 until calibrated")
    if (impl, pass_name) in DQ_TILE_FRACTION:
        terms["dq_tile_fraction"] = sourced(0.75, "a dQ item's tile / a dK/dV item's tile of one q head: 3 of 4 "
                                                  "matrix products (Q K^T, dO V^T, dS K against Q K^T, dO V^T, "
                                                  "P^T dO, dS^T Q), an assumption until calibrated")
    return terms


# Passes over q that CTAs of the kernel's own grid run after its tile items (KernelParams::tail_pass_bytes_per_element).
BWD_TAIL_PASS_BYTES = {
    "lcab_flash": (6, "kernels/hopper/flash_backward_sm90.cu: the dK/dV grid's tail CTAs read the fp32 dQ "
                      "accumulator (4 B), write dQ (2 B) and write zeros back over the accumulator per q element "
                      "(model/perf/backward_tail.h); the accumulator is compressible memory where the GPU grants it "
                      "(kernels/compressible_buffer.h, since fad02d8), so the zero lines reach DRAM compressed and are "
                      "not charged (10 B from the tail's zeroing of 2026-11-25 until then; refits of the H200's "
                      "2026-12-02 backward sweep: MAPE / p90 3.34 / 7.89 with 6 B, 3.37 / 8.28 with 10 B)"),
}


def q_pass_bytes(impl, pass_name, dtype):
    if pass_name == "bwd" and impl in BWD_Q_PASS_BYTES:
        value, source = BWD_Q_PASS_BYTES[impl]
        return sourced(value, source)
    return sourced(0, "no passes over q outside the tile loop known for this kernel and pass")


# Tile shapes that differ by head dim (kernels/flash_tiles.h): lcab_flash's Hopper kernels at hd 256 stream 64 keys
# per forward step (O takes 128 registers per thread) and own 64 keys per backward CTA; the mma.sync backward at hd 64
# streams 128 queries per step on GPUs granting its CTA 162 KiB of shared memory, as H100s and H200s do
# (kernels/mma_sync_fit.h mma_sync_backward_tile).
TILES_BY_HEAD_DIM = {("lcab_flash", "fwd", 256): (128, 64), ("lcab_flash", "bwd", 256): (64, 64),
                     ("lcab_flash_sm80", "bwd", 64): (128, 128)}


# Head dims an implementation runs, where not all three: lcab_flash_sm80 is lcab_flash held to its mma.sync path, which
# has 64 and 128 (kernels/flash_tiles.h flash_supports_head_dim; hd 256 is the Hopper path's), so that lcab-predict
# names the head dims it has instead of predicting a kernel that does not exist.
HEAD_DIMS = {"lcab_flash_sm80": (64, 128)}


def kernel_entries(gpu):
    entries = []
    for impl, (tile_fwd, tile_bwd, scheduler, figures, impl_source) in IMPLS.items():
        by_head_dim = figures[gpu] if isinstance(figures[gpu], dict) else {HD: (figures[gpu], impl_source, None)}
        for pass_name, tile, factor in (("fwd", tile_fwd, 1.0), ("bwd", tile_bwd, 2.5)):
            for head_dim in HEAD_DIMS.get(impl, (64, 128, 256)):
                measured_head_dim = head_dim if head_dim in by_head_dim else HD
                (full_fwd, full_bwd, causal_fwd, causal_bwd), source, band = by_head_dim[measured_head_dim]
                tf, tc = (full_fwd, causal_fwd) if pass_name == "fwd" else (full_bwd, causal_bwd)
                hd_tile = TILES_BY_HEAD_DIM.get((impl, pass_name, head_dim), tile)
                banded = pass_name == "fwd" and band is not None
                if banded:
                    c_full, c_partial, c_row = solve_forward_with_band(hd_tile, tf, tc, band[0], head_dim,
                                                                       measured_head_dim)
                    row_clamped = False
                    source = f"{source}, {band[1]}"
                else:
                    c_full, c_partial, c_row, row_clamped = solve_kernel(hd_tile, tf, tc, factor, head_dim,
                                                                         measured_head_dim)
                scaled = "" if head_dim == measured_head_dim else (
                    f"; scaled from hd128 by head_dim/128 (FLOPs per tile grow with D; same TFLOP/s assumed, "
                    f"not measured at hd{head_dim})")
                if hd_tile != tile:
                    scaled += f"; at hd{head_dim} its tile is {hd_tile[0]}x{hd_tile[1]} (TILES_BY_HEAD_DIM)"
                derivation = (f"solved so that the model gives {tf} TFLOP/s on full and {tc} on causal at 16K"
                              + (f" and {band[0]} ms on band1 at 32K" if banded else "") +
                              f", 64 heads, hd{measured_head_dim}, {SMS} SMs; from {source}{scaled}")
                if row_clamped:
                    derivation = derivation.replace("solved so that", "causal is not slower per FLOP than full "
                                                    "here, so row_us = 0 and full_tile_us solved so that")
                for dtype in ("bf16", "fp16"):
                    entries.append({
                        "impl": impl, "pass": pass_name, "head_dim": head_dim, "dtype": dtype,
                        "tile_q": hd_tile[0], "tile_k": hd_tile[1],
                        "scheduler": SCHEDULERS.get((impl, pass_name), scheduler),
                        "work_item": WORK_ITEMS.get((impl, pass_name), ("q_row_per_head", ""))[0],
                        "ctas_per_sm": sourced(1, "assumption: one CTA per SM at these tile sizes (shared-memory "
                                                  "bound); costs are per slot"),
                        "full_tile_us": sourced(round(c_full, 6), derivation),
                        "partial_tile_us": sourced(round(c_partial, 6), derivation if banded else
                                                   f"assumption: {PARTIAL_OVER_FULL} x full_tile_us (in-tile "
                                                   "masking of boundary tiles)"),
                        "row_us": sourced(round(c_row, 6), derivation),
                        "launch_us": sourced(LAUNCH_US, "assumption: launch and tail of one kernel call"),
                        "q_pass_bytes_per_element": q_pass_bytes(impl, pass_name, dtype),
                        **optional_terms(impl, pass_name, head_dim, c_full),
                        "fit": {},
                    })
    return entries


def fit_affine(points, factor):
    """Least squares of relative error for time_us = lat + bytes * factor / bw over (bytes, us) points."""
    # minimize sum ((lat + x/bw - t) / t)^2: linear in (lat, 1/bw)
    a11 = a12 = a22 = b1 = b2 = 0.0
    for size, t in points:
        x = size * factor
        w = 1.0 / (t * t)
        a11 += w; a12 += w * x; a22 += w * x * x; b1 += w * t; b2 += w * x * t
    det = a11 * a22 - a12 * a12
    lat = (b1 * a22 - b2 * a12) / det
    inv_bw = (a11 * b2 - a12 * b1) / det
    return max(lat, 0.0), 1e6 / inv_bw


MIB = 1 << 20
SIZES = [MIB, 16 * MIB, 64 * MIB, 256 * MIB, 1024 * MIB]
NCCL_SOURCE = (ANCHORS + " measured here: NCCL 2.28 on two H200 over NVLink 4 (NV18), bf16, through PyTorch 2.11 "
               "(1 MiB .. 1 GiB); fitted time = latency + bytes x factor / bus bandwidth, least squares of relative "
               "error")
SENDRECV_POINTS = [(MIB, 28), (4 * MIB, 41), (16 * MIB, 91), (64 * MIB, 254), (256 * MIB, 875), (1024 * MIB, 2985)]
SENDRECV_SOURCE = (ANCHORS + " measured here: NCCL send/recv ring exchange between two H200 over NVLink, called "
                   "from C++ (28 us at 1 MiB .. 2985 us at 1 GiB); fitted time = latency + bytes / bandwidth, least "
                   "squares of relative error")


def collectives(network_bytes_per_s, network_latency_us):
    intra = {}
    intra["send_recv"] = fit_affine(SENDRECV_POINTS, 1.0) + (SENDRECV_SOURCE,)
    # all-to-all: nccl-tests size = bytes per rank; per pair chunk = size / 2, (n - 1) = 1 chunk crosses.
    intra["all_to_all"] = fit_affine(list(zip(SIZES, [34, 69, 173, 534, 1674])), 0.5) + (
        NCCL_SOURCE + ": all-to-all 34/69/173/534/1674 us; chunk per pair = size/2",)
    intra["all_gather"] = fit_affine(list(zip(SIZES, [33, 113, 316, 1071, 3818])), 1.0) + (
        NCCL_SOURCE + ": all-gather 33/113/316/1071/3818 us for bytes per rank",)
    intra["reduce_scatter"] = fit_affine(list(zip(SIZES, [35, 112, 329, 1096, 3924])), 1.0) + (
        NCCL_SOURCE + ": reduce-scatter 35/112/329/1096/3924 us for bytes per rank out",)
    lat_ag, bw_ag, _ = intra["all_gather"]
    lat_rs, bw_rs, _ = intra["reduce_scatter"]
    intra["all_reduce"] = (lat_ag + lat_rs, 2.0 / (1.0 / bw_ag + 1.0 / bw_rs),
                           "derived: ring all-reduce = reduce-scatter + all-gather, from the two fits above "
                           "(all-reduce not measured)")
    out = []
    for op, (lat, bw, source) in intra.items():
        out.append({"op": op, "link": "intra_node", "latency_us": sourced(round(lat, 3), source),
                    "bytes_per_s": sourced(round(bw, -6), source), "fit": {}})
    for op, (lat, bw, source) in intra.items():
        out.append({"op": op, "link": "inter_node",
                    "latency_us": sourced(round(lat + network_latency_us, 3),
                                          f"intra-node latency fit plus one network hop ({network_latency_us} us, "
                                          "assumption; not measured here)"),
                    "bytes_per_s": sourced(network_bytes_per_s, "network.bytes_per_s: InfiniBand NDR 400 Gb/s per "
                                           "GPU, 50 GB/s per direction (" + ANCHORS + "); not measured here"),
                    "fit": {}})
    return out


def profile(gpu):
    is_h200 = gpu == "h200"
    net_bw, net_lat = 50e9, 5.0
    return {
        "schema": "lcab.profile/1",
        "name": "h200_sxm" if is_h200 else "h100_sxm",
        "provenance": {
            "kind": "datasheet",
            "description": "Datasheet and " + ANCHORS + " figures; kernel and collective parameters derived by "
                           "model/perf/derive_datasheet_profiles.py. Replace with lcab-calibrate output.",
            "inputs": [ANCHORS], "devices": [], "date": "2026-11-22", "git_sha": "", "residuals": {},
        },
        "gpu": {
            "name": "NVIDIA H200" if is_h200 else "NVIDIA H100 80GB HBM3",
            "sms": sourced(132, ANCHORS + " hardware limits (H100/H200 SXM: 132 SMs)"),
            "peak_dense_flops_per_s": sourced(989e12, ANCHORS + " hardware limits: dense BF16 tensor, datasheet"),
            "hbm_bytes_per_s": sourced(4.8e12 if is_h200 else 3.35e12,
                                       ANCHORS + " hardware limits: HBM " + ("4.8" if is_h200 else "3.35") +
                                       " TB/s, datasheet"),
            "memory_bytes": sourced((143771 if is_h200 else 81559) * MIB,
                                    "nvidia-smi total memory (" + ("143771 MiB; datasheet 141 GB" if is_h200 else
                                                                    "81559 MiB; datasheet 80 GB") + ")"),
        },
        "node": {
            "gpus_per_node": sourced(8, "HGX H100/H200 baseboard: 8 GPUs per node"),
            "intra_bytes_per_s": sourced(450e9, ANCHORS + " hardware limits: NVLink 4, 450 GB/s per GPU per "
                                                "direction"),
            "intra_latency_us": sourced(2.0, "assumption: one NVLink/NVSwitch hop of a ring step; not measured "
                                             "here"),
        },
        "network": {
            "bytes_per_s": sourced(net_bw, ANCHORS + " hardware limits: InfiniBand NDR per GPU, 50 GB/s per "
                                           "direction"),
            "latency_us": sourced(net_lat, "assumption: one InfiniBand hop including the switch; not measured "
                                           "here"),
        },
        "overlap_slowdown": sourced(1.1, "assumption: NCCL kernels take some SMs and memory bandwidth from "
                                         "attention while they overlap; replaced by calibration on CP records"),
        "kernels": kernel_entries(gpu),
        "collectives": collectives(net_bw, net_lat),
    }


CALIBRATED = {"h100": "h100_sxm.calibrated.json", "h200": "h200_sxm.calibrated.json"}
COMM_FROM = "h200"  # the calibrated profile whose collectives and overlap slowdown both built-ins take


def load_calibrated(profiles_dir, gpu):
    path = os.path.join(profiles_dir, CALIBRATED[gpu])
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def with_origin(entry, keys, origin):
    """The entry with the source of each fitted number prefixed by where the fit is committed."""
    out = dict(entry)
    for key in keys:
        if key in out and isinstance(out[key], dict) and "source" in out[key]:
            out[key] = {"value": out[key]["value"], "source": origin + ": " + out[key]["source"]}
    return out


KERNEL_FITTED = ("full_tile_us", "partial_tile_us", "row_us", "launch_us", "slice_us", "kv_tile_us",
                 "kv_expand_bytes_per_element", "sustained_slowdown", "sustained_rate_per_us", "host_floor_us", "dq_tile_fraction",
                 "unmasked_tile_us", "register_slices", "spilled_slice_us", "idle_half_tile_us")
COMM_FITTED = ("latency_us", "bytes_per_s", "ll_latency_us", "ll_bytes_per_s", "small_group_us_per_byte")


def merge_fits(base, gpu, profiles_dir):
    """Replaces the entries of `base` that the committed calibrations fitted; returns the names of those used."""
    used = []
    own = load_calibrated(profiles_dir, gpu)
    if own is not None:
        origin = "data/profiles/" + CALIBRATED[gpu]
        fitted = {(k["impl"], k["pass"], k["head_dim"], k["dtype"]): k for k in own["kernels"] if k.get("fit")}
        for i, k in enumerate(base["kernels"]):
            key = (k["impl"], k["pass"], k["head_dim"], k["dtype"])
            if key in fitted:
                base["kernels"][i] = with_origin(fitted[key], KERNEL_FITTED, origin)
        if fitted:
            used.append(origin)
    comm = load_calibrated(profiles_dir, COMM_FROM)
    if comm is not None:
        origin = "data/profiles/" + CALIBRATED[COMM_FROM] + (" (H200 measurements)" if gpu != COMM_FROM else "")
        fitted = {(c["op"], c["link"]): c for c in comm["collectives"] if c.get("fit")}
        for i, c in enumerate(base["collectives"]):
            if (c["op"], c["link"]) in fitted:
                base["collectives"][i] = with_origin(fitted[(c["op"], c["link"])], COMM_FITTED, origin)
        for key in ("overlap_slowdown", "executor_pass_bytes_per_s"):
            fitted_value = comm.get(key)
            if fitted_value and fitted_value["source"].startswith("lcab-calibrate"):
                base[key] = {"value": fitted_value["value"], "source": origin + ": " + fitted_value["source"]}
        if fitted and origin not in used:
            used.append(origin)
    if used:
        base["provenance"]["description"] += (" Fitted entries (kernels of this GPU, intra-node collectives, overlap "
                                               "slowdown, CP executor pass bandwidth) taken from " + ", ".join(used) + " by the same script.")
        base["provenance"]["inputs"] = base["provenance"]["inputs"] + used
    return used


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = [a for a in sys.argv[1:] if a != "--datasheet-only"]
    datasheet_only = len(args) != len(sys.argv) - 1
    profiles_dir = os.path.join(here, "..", "..", "data", "profiles")
    out_dir = args[0] if args else profiles_dir
    for gpu, name in (("h100", "h100_sxm"), ("h200", "h200_sxm")):
        # The datasheet layer alone: the starting point (--base) of every calibration, so that fits do not depend
        # on earlier fits.
        write(os.path.join(out_dir, name + ".datasheet.json"), profile(gpu))
        result = profile(gpu)
        if not datasheet_only:
            merge_fits(result, gpu, profiles_dir)
        write(os.path.join(out_dir, name + ".json"), result)


def write(path, content):
    with open(path, "w") as f:
        json.dump(content, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
