#!/usr/bin/env bash
# H200 call (nvidia-h200) with main's binaries of 2957b7c: the GPU tests of the kernels and the measurement
# (lcab_cp_tests' P = 2 cases skip on one GPU), then the backward re-measured at hd 64, 128 and 256 (every registered
# mask x 1K..32K x GQA/MHA, bf16, 2 warm-up and 5 timed repetitions) to check the committed H200 profiles against it.
#   carry: build-carry/final2/{lcab-measure,lcab_kernel_tests,lcab_measure_tests,lcab_cp_tests}.xz
source scripts/device_call_env.sh || exit 2
B=build-carry/final2
bash scripts/carry.sh unpack $B
device_info
for suite in lcab_kernel_tests lcab_measure_tests lcab_cp_tests; do
  timeout 200 $B/$suite > $O/$suite.txt 2>&1; test_summary $suite $? $O/$suite.txt
done
flash_sweep $B/lcab-measure bwd 64,128,256 $O/lcab-measure-kernel-bwd-rezero-2026-11-25.jsonl 250
