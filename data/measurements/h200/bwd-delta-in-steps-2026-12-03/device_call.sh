#!/usr/bin/env bash
# H200 call (nvidia-h200): main 7f232a0's lcab-kernel-bench (base) against two trial builds of trial.patch (delta =
# rowsum(dO * O) summed inside the backward's steps at hd 64 and 128 by two warps of the producer's warpgroup, from
# an O tile loaded beside each step's dO; no delta pass in front of the grid; the conversion CTAs zero their
# counters again): trial24 as the patch (producer warpgroup 24 registers, consumers 240; ptxas spills 12-24 bytes),
# trial32 the same with 32 / 232 (no spills). GPU tests of trial24 first; 3 rotating rounds of lcab-kernel-bench,
# bwd, hd 128 and 64: causal_document, the window, block_causal_document and band1 at 32K, full and causal at 16K,
# full, causal_document and the window at 4K.
#   carry: build-carry/base/lcab-kernel-bench.xz (main), build-carry/trial24/{lcab-kernel-bench,lcab_kernel_tests}.xz,
#   build-carry/trial32/lcab-kernel-bench.xz
ROUNDS=3 PASS=bwd HEAD_DIMS="128 64" MASKS_EXTRA=full,causal_document,sliding_window_causal \
  SEQ_EXTRA=4k SASS_MATCH=flash_dkdv_sm90 TESTS_TIMEOUT=300 bash scripts/ab_device_call.sh --tests trial24 base trial24 trial32
