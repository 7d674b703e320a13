#!/usr/bin/env bash
# H100 call: a share of the forward softmax's exponentials on the FMA pipe (kernels/flash_common.cuh fma_exp2),
# every 4th (p4, 25%) and every 8th (p8, 12.5%) of a thread's row half, against main's forward (base): GPU kernel
# tests of p4, SASS counts, three rotating rounds, per-cycle summaries.
#   carry: build-carry/{base,p4,p8}/lcab-kernel-bench and build-carry/p4/lcab_kernel_tests (scripts/carry.sh pack)
bash scripts/ab_device_call.sh --tests p4 base p4 p8
