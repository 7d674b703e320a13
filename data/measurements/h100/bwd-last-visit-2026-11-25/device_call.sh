#!/usr/bin/env bash
# The device calls of this trial, as they ran (nvidia-h100-x1; the device tool's command line, run from the
# repository root with build-carry/ carried). Each BUILD is build-carry/BUILD/ holding lcab-kernel-bench (and
# lcab_kernel_tests for --tests), packed with scripts/carry.sh (README of scripts/ab_device_call.sh).
#   base: main's lcab-kernel-bench (84ae3fb; the kernels are those of 16ab16a).
#   lv1: the last-visit conversion (patches/v1-last-visit.patch).
#   lv2: lv1 with the consumers waiting for the reductions of all but the last 2 steps (patches/v2-done-lag.patch);
#   lv2nc: lv2 built with LCAB_DIAG_NO_COUNT (timing only: the counting warp counts no visit, nothing is converted).
#   lv3: lv2 with the visits counted in batches of at least 4 steps, one lane per step, one release fence per batch
#     (patches/v3-batched-counts.patch).
#   Diagnostics (timing only), each main's kernel with one part of the trial's machinery at hd 128
#     (patches/diag-*.patch): dregs 40 / 232 registers; dsmem 32 KiB more shared memory per CTA; dfence the
#     consumers' per-step signal (wait for all but 2 reductions, proxy fence, release store to shared memory);
#     dwarps two producer warps polling shared memory until the loader ends.
#   And two of lv3: lv3relaxed its adds relaxed (no release fence: not a valid design, timing only);
#     lv3noconv the converting warp takes its tiles and converts none (dq wrong, timing only).
#   lv3noload: lv3 without the converting warp's TMA load of the tile (it converts stale shared memory); lv3nostore:
#     lv3 without its stores of dq and of the zeros (timing only, both).
#   Call 6 (the builds made again from 16ab16a + v3 in a worktree): lv3, lv3noconv, and lv3fenceonly (the converting
#     warp takes each tile and runs only the conversion's proxy fences) and lv3readonly (only its shared-memory reads
#     and packing, into a value it never stores), timing only.
export NCCL_NVLS_ENABLE=0
case "${1:-}" in
  1) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_EXTRA=sliding_window_causal,causal_document SEQ_EXTRA=4k ROUNDS=2 TESTS_TIMEOUT=300
     timeout 590 bash scripts/ab_device_call.sh --tests lv1 base lv1 ;;
  2) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_LONG=causal_document,sliding_window_causal MASKS_SHORT=full MASKS_EXTRA=sliding_window_causal,causal_document SEQ_EXTRA=4k ROUNDS=2
     timeout 500 bash scripts/ab_device_call.sh base lv2 lv2nc ;;
  3) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_LONG=causal_document,sliding_window_causal,block_causal_document MASKS_SHORT=full,causal MASKS_EXTRA=sliding_window_causal,causal_document SEQ_EXTRA=4k ROUNDS=2 TESTS_TIMEOUT=300
     timeout 590 bash scripts/ab_device_call.sh --tests lv3 base lv3 ;;
  4) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_LONG=causal_document,sliding_window_causal MASKS_SHORT=full ROUNDS=2
     timeout 590 bash scripts/ab_device_call.sh base dregs dsmem dfence dwarps lv3relaxed lv3noconv ;;
  5) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_LONG=causal_document,sliding_window_causal MASKS_SHORT=full ROUNDS=2
     timeout 590 bash scripts/ab_device_call.sh base lv3 lv3noload lv3nostore ;;
  6) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_LONG=causal_document,sliding_window_causal MASKS_SHORT=full ROUNDS=2
     timeout 590 bash scripts/ab_device_call.sh base lv3 lv3noconv lv3fenceonly lv3readonly ;;
  *) echo "usage: $0 1..6" >&2; exit 2 ;;
esac
