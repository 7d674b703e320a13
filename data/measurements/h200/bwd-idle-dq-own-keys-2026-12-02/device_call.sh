#!/usr/bin/env bash
# H200 call (nvidia-h200): A/B of the Hopper backward (hd 128) with trial.patch against main 8fe5940's binary (the
# clean-clone CI's build): on a step whose other key half is idle, the computing warpgroup's dQ product runs over its
# own 64 keys instead of all 128 (the idle half's dS^T rows, zeros, are no longer written). GPU tests of the trial
# build first; then 3 rotating rounds of lcab-kernel-bench, bwd, hd 128: causal_document, the window,
# block_causal_document and band1 at 32K, full and causal at 16K, causal_document and the window at 4K.
#   carry: build-carry/base/lcab-kernel-bench.xz (main), build-carry/trial/{lcab-kernel-bench,lcab_kernel_tests}.xz
ROUNDS=3 PASS=bwd HEAD_DIMS=128 MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k \
  SASS_MATCH=flash_dkdv_sm90 TESTS_TIMEOUT=300 bash scripts/ab_device_call.sh --tests trial base trial
