#!/usr/bin/env bash
# The device calls of this measurement, as they ran (nvidia-h200; the device tool's command line, run from the
# repository root with build-carry/ carried; README of scripts/ab_device_call.sh).
#   base: main's lcab-kernel-bench (8001307).
#   dc128: decoupled-hd128.patch on 8001307 (head dim 128's slice-walking backward gets a decoupled instantiation:
#     each consumer warpgroup's dQ over its own 64 keys in all 128 columns, two 64-column products and reductions
#     per step from two staging buffers), lcab-kernel-bench and lcab_kernel_tests.
#   Call 2's diagnostic builds (wrong dQ by design, so no tests; NOTE.md):
#   red1, red0: diag-dq-boxes.patch on 8001307 with LCAB_DIAG_DQ_BOXES 1 and 0: main's kernels with one of each
#     warpgroup's two 32-column dQ boxes reduced per step (half the reduce-add traffic), or none.
#   dc128r1: dc128 with one box per panel reduced (two 32-column boxes per step, main's traffic).
export NCCL_NVLS_ENABLE=0
case "${1:-}" in
  1) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_EXTRA=sliding_window_causal,causal_document SEQ_EXTRA=4k ROUNDS=3 TESTS_TIMEOUT=300
     timeout 590 bash scripts/ab_device_call.sh --tests dc128 base dc128 ;;
  2) export PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=sliding_window_causal,causal_document SEQ_EXTRA=4k ROUNDS=3
     timeout 590 bash scripts/ab_device_call.sh base red1 red0 dc128r1 ;;
  *) echo "usage: $0 1..2" >&2; exit 2 ;;
esac
