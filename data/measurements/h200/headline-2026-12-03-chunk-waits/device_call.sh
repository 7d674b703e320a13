#!/usr/bin/env bash
# The headline comparison of issues 3 and 4 (scripts/headline_benchmark.sh: lcab_flash and cudnn through
# lcab-measure with the PyTorch peers in one run) with main f74cf89's binaries (built from its tree before the commit; kernels of 866ea2e: each dQ
# conversion chunk waits for its own rows, ../bwd-conversion-by-rows-2026-12-02/), one H200 (nvidia-h200), after
# the three GPU test suites of the same binaries.
#   carry: build-carry/final/{lcab-measure,lcab-predict,lcab_kernel_tests,lcab_measure_tests,lcab_cp_tests}.xz
source scripts/device_call_env.sh || exit 2
B=build-carry/final
bash scripts/carry.sh unpack $B
mkdir -p $B/apps && ln -sf ../lcab-measure $B/apps/lcab-measure && ln -sf ../lcab-predict $B/apps/lcab-predict
device_info
for suite in lcab_kernel_tests lcab_measure_tests lcab_cp_tests; do
  timeout 150 $B/$suite > $O/$suite.txt 2>&1; test_summary $suite $? $O/$suite.txt
done
BUILD=$B timeout $(( 580 - $(t) )) scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
echo "headline rc=$? t=$(t)"; cat $O/headline.md
