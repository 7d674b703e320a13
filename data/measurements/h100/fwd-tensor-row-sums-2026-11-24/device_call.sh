#!/usr/bin/env bash
# H100 call: the forward's row sums of P on the tensor cores (P times a block of ones with each P V, one m64n8k16
# wgmma per k step; hd 64 and 128, hd 256 unchanged) against main's forward (base): GPU kernel tests of tcs, SASS
# counts, three rotating rounds at hd 128 and 64, per-cycle summary.
#   carry: build-carry/{base,tcs}/lcab-kernel-bench and build-carry/tcs/lcab_kernel_tests (scripts/carry.sh pack)
HEAD_DIMS="128 64" bash scripts/ab_device_call.sh --tests tcs base tcs
