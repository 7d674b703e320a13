#!/usr/bin/env bash
# The eight device calls of this trial, as they ran (nvidia-h100-x1; the device tool's command line, run from the
# repository root with build-carry/ carried). Each BUILD is build-carry/BUILD/ holding lcab-kernel-bench (and
# lcab_kernel_tests for --tests), packed with scripts/carry.sh; env variants are wrapper scripts running another
# build's binary with LCAB_FLASH_BACKWARD_FIRST_WRITERS set (README of scripts/ab_device_call.sh).
#   base: main's lcab-kernel-bench (84ae3fb).
#   fw, fwoff: patches/v1-first-writers.patch; fwoff = fw with =off.
#   fw2, fw2off: patches/v2-step-lists.patch; fw2off = fw2 with =off. fw2diag: v2 with the diagnostic choices of
#     patches/v3-two-delta-warps-and-diagnostics.patch's flash_attention.cpp (shared, nowait); fw2shared / fw2nowait
#     = fw2diag with =shared / =nowait.
#   fw3: v3 without the diagnostics; fw3diag: v3 as patched; fw3shared / fw3nowait / fw3nodelta = fw3diag with
#     =shared / =nowait / =nodelta. (call 6's fw3nowait ran fw3's binary, which had the nowait choice already.)
export NCCL_NVLS_ENABLE=0
case "${1:-}" in
  1) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_EXTRA=sliding_window_causal,causal_document SEQ_EXTRA=4k ROUNDS=2 TESTS_TIMEOUT=400
     timeout 590 bash scripts/ab_device_call.sh --tests fw base fw fwoff ;;
  2|3) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_EXTRA=sliding_window_causal SEQ_EXTRA=16k ROUNDS=2
     [ "$1" = 2 ] && export TESTS_TIMEOUT=400 || export TESTS_TIMEOUT=300
     timeout 590 bash scripts/ab_device_call.sh --tests fw2 base fw2 fw2off ;;
  4) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_LONG=sliding_window_causal,band1 MASKS_SHORT=sliding_window_causal,full ROUNDS=2
     timeout 500 bash scripts/ab_device_call.sh base fw2 fw2shared fw2nowait ;;  # fw2diag not listed: not unpacked
  5) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_LONG=sliding_window_causal,band1 MASKS_SHORT=sliding_window_causal,full ROUNDS=2
     timeout 500 bash scripts/ab_device_call.sh base fw2diag fw2shared fw2nowait ;;
  6) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_LONG=sliding_window_causal,band1,causal_document MASKS_SHORT=sliding_window_causal,full ROUNDS=2 TESTS_TIMEOUT=300
     timeout 560 bash scripts/ab_device_call.sh --tests fw3 base fw3 fw3nowait ;;
  7) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_LONG=sliding_window_causal,band1 MASKS_SHORT=sliding_window_causal ROUNDS=2
     timeout 500 bash scripts/ab_device_call.sh base fw3diag fw3shared fw3nowait fw3nodelta ;;
  8) export PASS=bwd HEAD_DIMS=128 SASS_MATCH=dkdv MASKS_LONG=sliding_window_causal,band1 MASKS_SHORT=sliding_window_causal,full ROUNDS=2
     # fw4diag: patches/v4-diagnostics-plain-order.patch; fw4shared = =shared (now planned on every mask, all tiles
     # shared), fw4sharedplain = the same with LCAB_DIAG_PLAIN_ORDER=1 (the walks' own order), fw4nodelta = =nodelta.
     timeout 560 bash scripts/ab_device_call.sh base fw4diag fw4shared fw4sharedplain fw4nodelta ;;
  *) echo "usage: $0 1..8" >&2; exit 2 ;;
esac
