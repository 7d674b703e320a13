#!/usr/bin/env bash
# The headline comparison of issues 3 and 4 (scripts/headline_benchmark.sh: lcab_flash and cudnn through
# lcab-measure with the PyTorch peers in one run) with main 28a74c0's binaries (the delta pass by blocks of q rows,
# ../delta-kernel-rows-2026-12-03/), one H200 (nvidia-h200), after the three GPU test suites of the same binaries
# (headline_call, scripts/device_call_env.sh).
#   carry: build-carry/final/{lcab-measure,lcab-predict,lcab_kernel_tests,lcab_measure_tests,lcab_cp_tests}.xz
source scripts/device_call_env.sh || exit 2
headline_call build-carry/final
