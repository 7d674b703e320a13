#!/usr/bin/env bash
# The device call of this measurement, as it ran (nvidia-h100-x1; the device tool's command line, run from the
# repository root with build-carry/ carried; README of scripts/ab_device_call.sh).
#   base: main's lcab-kernel-bench (84ae3fb; the kernels are those of 16ab16a).
#   rz: rezero.patch on 16ab16a (the Hopper accumulator zeroed once when allocated, the tail's conversion writing
#     zeros back, no memset in front of the grid), lcab-kernel-bench and lcab_kernel_tests.
export NCCL_NVLS_ENABLE=0
case "${1:-}" in
  1) export PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=sliding_window_causal,causal_document SEQ_EXTRA=4k ROUNDS=2 TESTS_TIMEOUT=300
     timeout 590 bash scripts/ab_device_call.sh --tests rz base rz ;;
  2) export PASS=bwd HEAD_DIMS=256 SASS_MATCH=dkdv MASKS_EXTRA=sliding_window_causal,causal_document SEQ_EXTRA=4k ROUNDS=2
     timeout 590 bash scripts/ab_device_call.sh base rz ;;
  *) echo "usage: $0 1..2" >&2; exit 2 ;;
esac
