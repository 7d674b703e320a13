#!/usr/bin/env bash
# H100 call: the GPU tests of main's binaries after the review commit (the tail's rows per chunk read from the work
# list; the consumers' SASS unchanged): lcab_kernel_tests, then lcab_cp_tests.
#   carry: build-carry/tests/{lcab_kernel_tests,lcab_cp_tests}.xz (scripts/carry.sh pack)
bash scripts/carry.sh unpack build-carry/tests
source scripts/device_call_env.sh || exit 2
device_info
timeout 220 build-carry/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; test_summary kernel $? $O/lcab_kernel_tests.txt
timeout 100 build-carry/tests/lcab_cp_tests > $O/lcab_cp_tests.txt 2>&1; test_summary cp $? $O/lcab_cp_tests.txt
