# The device call as it ran (nvidia-h100-x1, carry: build-carry/main build-carry/r3 build-carry/r2).
#   build-carry/main: lcab-kernel-bench of main (e5b0391), packed by scripts/carry.sh
#   build-carry/r3:   lcab-kernel-bench and lcab_kernel_tests with ../patches/counted-ring-hd64-3-stages.patch, packed
#   build-carry/r2:   lcab-kernel-bench with ../patches/counted-ring-hd64-2-stages.patch, packed
export NCCL_NVLS_ENABLE=0; PASS=bwd HEAD_DIMS="64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=3 timeout 570 bash scripts/ab_device_call.sh --tests r3 main r3 r2
