# The device call as it ran (nvidia-h100-x1, carry: build-carry/base build-carry/tail1).
#   build-carry/base:  lcab-kernel-bench of main (9cfb8a9; the kernels of 11d0e17 are the same), packed by scripts/carry.sh
#   build-carry/tail1: lcab-kernel-bench and lcab_kernel_tests with ../tail-bulk.patch, packed
export NCCL_NVLS_ENABLE=0; PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=2 timeout 570 bash scripts/ab_device_call.sh --tests tail1 base tail1
