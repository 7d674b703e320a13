# The device call as it ran (nvidia-h100-x1, carry: build-carry/main build-carry/rule).
#   build-carry/rule: lcab-kernel-bench and lcab_kernel_tests with ../patches/rule.patch (one kernel, the barrier's id
#   and thread count chosen at run time), packed
export NCCL_NVLS_ENABLE=0; PASS=bwd HEAD_DIMS="64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal,causal SEQ_EXTRA=4k ROUNDS=3 timeout 570 bash scripts/ab_device_call.sh --tests rule main rule
