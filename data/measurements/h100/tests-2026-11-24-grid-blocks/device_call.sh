#!/usr/bin/env bash
# H100 call: the GPU tests of main with the review's change (the Hopper backward's grid sized from its uploaded list,
# DeviceWork::grid_blocks; the kernels' SASS is the same instruction for instruction but for parameter offsets).
#   carry: build-carry/mend/{lcab_kernel_tests,lcab_measure_tests,lcab_cp_tests}.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/mend
bash scripts/carry.sh unpack $B
device_info
timeout 240 $B/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; test_summary kernel $? $O/lcab_kernel_tests.txt
timeout 90 $B/lcab_measure_tests > $O/lcab_measure_tests.txt 2>&1; test_summary measure $? $O/lcab_measure_tests.txt
timeout 90 $B/lcab_cp_tests > $O/lcab_cp_tests.txt 2>&1; test_summary cp $? $O/lcab_cp_tests.txt
