#!/usr/bin/env bash
# nvidia-h100-x1 call, main's binaries of c47d369: the GPU tests of those binaries on one H100, then lcab_flash's
# backward sweep at hd 64, the one head dim whose kernel changed since the sweep of ../bwd-sweep-2026-11-24-conversion
# (the three-stage ring; every registered mask x 1K..32K x 64/8 and 64/64 heads, bf16, 2 warm-up and 5 timed reps).
#   carry: build-carry/c47d369/{lcab-measure,lcab_kernel_tests,lcab_cp_tests,lcab_measure_tests}.xz (scripts/carry.sh
#   pack; the same files as ../../h200/bwd-sweep-2026-11-24-ring's build-carry/h200)
source scripts/device_call_env.sh || exit 2
B=build-carry/c47d369
bash scripts/carry.sh unpack $B
set -u
device_info
timeout 200 $B/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; test_summary kernel $? $O/lcab_kernel_tests.txt
timeout 100 $B/lcab_measure_tests > $O/lcab_measure_tests.txt 2>&1; test_summary measure $? $O/lcab_measure_tests.txt
timeout 100 $B/lcab_cp_tests > $O/lcab_cp_tests.txt 2>&1; test_summary cp $? $O/lcab_cp_tests.txt
flash_sweep $B/lcab-measure bwd 64 $O/lcab-measure-kernel-bwd-ring-2026-11-24.jsonl 120
