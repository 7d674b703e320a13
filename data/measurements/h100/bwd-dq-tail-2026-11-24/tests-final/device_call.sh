#!/usr/bin/env bash
# H100 call: the GPU tests of main's binaries at the session's end (7550023's kernels; the kernel tests now run every
# backward a second time on its plan into poisoned outputs): lcab_kernel_tests, then lcab_measure_tests.
#   carry: build-carry/tests/{lcab_kernel_tests,lcab_measure_tests}.xz (scripts/carry.sh pack)
bash scripts/carry.sh unpack build-carry/tests
source scripts/device_call_env.sh
device_info
timeout 220 build-carry/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; test_summary kernel $? $O/lcab_kernel_tests.txt
timeout 100 build-carry/tests/lcab_measure_tests > $O/lcab_measure_tests.txt 2>&1; test_summary measure $? $O/lcab_measure_tests.txt
