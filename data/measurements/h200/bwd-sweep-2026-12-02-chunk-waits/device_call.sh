#!/usr/bin/env bash
# H200 call (nvidia-h200) with main's binaries (kernels of 866ea2e: each dQ conversion chunk waiting for its own rows' dK/dV
# CTAs, ../bwd-conversion-by-rows-2026-12-02/), the three GPU test suites (lcab_cp_tests' P = 2 cases skip on one
# GPU), then the backward re-measured at hd 64, 128 and 256 (every registered mask x 1K..32K x GQA/MHA, bf16, 2
# warm-up and 5 timed repetitions: flash_sweep) and at 64K (hd 128 and 64), to check the committed H200 profiles
# against it and refit them.
#   carry: build-carry/final/{lcab-measure,lcab-predict,lcab_kernel_tests,lcab_measure_tests,lcab_cp_tests}.xz
source scripts/device_call_env.sh || exit 2
B=build-carry/final
bash scripts/carry.sh unpack $B
device_info
for suite in lcab_kernel_tests lcab_measure_tests lcab_cp_tests; do
  timeout 200 $B/$suite > $O/$suite.txt 2>&1; test_summary $suite $? $O/$suite.txt
done
flash_sweep $B/lcab-measure bwd 64,128,256 $O/lcab-measure-kernel-bwd-chunk-waits-2026-12-02.jsonl 300
flash_sweep $B/lcab-measure bwd 128,64 $O/lcab-measure-kernel-bwd-64k-chunk-waits-2026-12-02.jsonl 200 64k
