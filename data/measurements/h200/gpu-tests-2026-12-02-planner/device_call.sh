#!/usr/bin/env bash
# H200 call (nvidia-h200) with main 170ae38's binaries (the FULL-slice tiler's and the sweep queue's changes; the
# work list's idle-half tiles now halve by bits in model/mask_tiling.h; kernels unchanged since d34e57c): the three
# GPU test binaries.
#   carry: build-carry/main/{lcab_kernel_tests,lcab_measure_tests,lcab_cp_tests}.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/main
bash scripts/carry.sh unpack $B
device_info
timeout 300 $B/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; test_summary kernel $? $O/lcab_kernel_tests.txt
timeout 120 $B/lcab_measure_tests > $O/lcab_measure_tests.txt 2>&1; test_summary measure $? $O/lcab_measure_tests.txt
timeout 120 $B/lcab_cp_tests > $O/lcab_cp_tests.txt 2>&1; test_summary cp $? $O/lcab_cp_tests.txt
