#!/usr/bin/env bash
# H200 call (nvidia-h200): main f74cf89's lcab-kernel-bench (base, built from its tree before the commit) against the trial build (trial.patch: the
# consumers' per-chunk conversion counts as relaxed reductions after the fence already there, instead of one
# release reduction each), GPU tests of the trial build first; 3 rotating rounds of lcab-kernel-bench, bwd, hd 128
# and 64: causal_document, the window, block_causal_document and band1 at 32K, full and causal at 16K, and full,
# causal, causal_document, the window and block_sparse at 1K and 4K (the short calls where a CTA counts on the most
# chunks).
#   carry: build-carry/base/lcab-kernel-bench.xz (main), build-carry/trial/{lcab-kernel-bench,lcab_kernel_tests}.xz
ROUNDS=3 PASS=bwd HEAD_DIMS="128 64" MASKS_EXTRA=full,causal,causal_document,sliding_window_causal,block_sparse \
  SEQ_EXTRA=1k,4k SASS_MATCH=flash_dkdv_sm90 TESTS_TIMEOUT=300 bash scripts/ab_device_call.sh --tests trial base trial
