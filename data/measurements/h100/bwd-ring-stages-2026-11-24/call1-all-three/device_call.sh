# The device call as it ran (nvidia-h100-x1, carry: build-carry/main build-carry/stages3).
#   build-carry/main:    lcab-kernel-bench of main (e5b0391), packed by scripts/carry.sh
#   build-carry/stages3: lcab-kernel-bench and lcab_kernel_tests with ../patches/three-stages-hd64-hd128.patch, packed
export NCCL_NVLS_ENABLE=0; PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=2 timeout 570 bash scripts/ab_device_call.sh --tests stages3 main stages3
