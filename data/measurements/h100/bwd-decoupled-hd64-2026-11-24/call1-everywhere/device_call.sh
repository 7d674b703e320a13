# The device call as it ran (nvidia-h100-x1, carry: build-carry/main build-carry/dec).
#   build-carry/main: lcab-kernel-bench of main (c47d369's kernels), packed by scripts/carry.sh
#   build-carry/dec:  lcab-kernel-bench and lcab_kernel_tests with ../patches/everywhere.patch, packed
export NCCL_NVLS_ENABLE=0; PASS=bwd HEAD_DIMS="64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=3 timeout 570 bash scripts/ab_device_call.sh --tests dec main dec
