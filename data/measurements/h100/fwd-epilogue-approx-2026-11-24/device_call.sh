#!/usr/bin/env bash
# H100 call: the forward epilogue's 1 / sum and the lse's log on the special-function unit (rcp.approx, lg2.approx)
# instead of the IEEE division (range check, slow path) and logf (rcp), against main's forward (base): GPU kernel
# tests of rcp, SASS counts, three rotating rounds at hd 128, 64 and 256, per-cycle summary.
#   carry: build-carry/{base,rcp}/lcab-kernel-bench and build-carry/rcp/lcab_kernel_tests (scripts/carry.sh pack)
bash scripts/ab_device_call.sh --tests rcp base rcp
