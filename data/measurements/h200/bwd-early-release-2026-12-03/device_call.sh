#!/usr/bin/env bash
# H200 call (nvidia-h200): main 38f7d28's lcab-kernel-bench (base) against trial.patch (early: each consumer warp
# of the hd 64 / 128 backward releases the step's Q/dO stage once its dV and dK products have completed, before its
# dQ product's, instead of after both). GPU tests of the trial first; then, in what was left of the session's device
# time, 2 rotating rounds of lcab-kernel-bench, bwd, hd 128: causal_document, the window, block_causal_document and
# band1 at 32K, full and causal at 16K.
#   carry: build-carry/base/lcab-kernel-bench.xz (main), build-carry/early/{lcab-kernel-bench,lcab_kernel_tests}.xz
ROUNDS=2 PASS=bwd HEAD_DIMS="128" SASS_MATCH=flash_dkdv_sm90 TESTS_TIMEOUT=150 \
  bash scripts/ab_device_call.sh --tests early base early
