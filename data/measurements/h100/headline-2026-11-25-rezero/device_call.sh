#!/usr/bin/env bash
# The GPU tests and the headline comparison of issues 3 and 4 (scripts/headline_benchmark.sh: lcab_flash and cudnn
# through lcab-measure with the PyTorch peers in one run) with main's binaries after the tail's zeroing (2957b7c),
# one H100 (nvidia-h100-x1).
#   carry: build-carry/final2/{lcab-measure,lcab-predict,lcab_kernel_tests,lcab_measure_tests,lcab_cp_tests}.xz
#   (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/final2
bash scripts/carry.sh unpack $B
mkdir -p $B/apps && ln -sf ../lcab-measure $B/apps/lcab-measure && ln -sf ../lcab-predict $B/apps/lcab-predict
device_info
for suite in lcab_kernel_tests lcab_measure_tests lcab_cp_tests; do
  timeout 200 $B/$suite > $O/$suite.txt 2>&1; test_summary $suite $? $O/$suite.txt
done
BUILD=$B timeout $(( 580 - $(t) )) scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
echo "headline rc=$? t=$(t)"; cat $O/headline.md
