# The device call as it ran (nvidia-h100-x1, carry: build-carry/main build-carry/merge build-carry/nomerge).
#   build-carry/main:    lcab-kernel-bench of main (e5b0391), packed by scripts/carry.sh
#   build-carry/merge:   lcab-kernel-bench and lcab_kernel_tests with ../patches/merged-halves.patch, packed
#   build-carry/nomerge: a wrapper, the merge build with its lists unmerged:
#       #!/usr/bin/env bash
#       export LCAB_FLASH_BACKWARD_MERGE_HALVES=0
#       exec "$(dirname "$0")/../merge/lcab-kernel-bench" "$@"
export NCCL_NVLS_ENABLE=0; PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=2 timeout 570 bash scripts/ab_device_call.sh --tests merge main merge nomerge
