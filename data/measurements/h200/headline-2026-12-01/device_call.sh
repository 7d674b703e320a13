#!/usr/bin/env bash
# The headline comparison of issues 3 and 4 (scripts/headline_benchmark.sh: lcab_flash and cudnn through
# lcab-measure with the PyTorch peers in one run) with main's binaries of fe43ba7 (kernels as 2957b7c's), one H200
# (nvidia-h200), then lcab_kernel_tests with what time is left.
#   carry: build-carry/final/{lcab-measure,lcab-predict,lcab_kernel_tests}.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/final
bash scripts/carry.sh unpack $B
mkdir -p $B/apps && ln -sf ../lcab-measure $B/apps/lcab-measure && ln -sf ../lcab-predict $B/apps/lcab-predict
device_info
BUILD=$B timeout 400 scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
echo "headline rc=$? t=$(t)"; cat $O/headline.md
left=$(( 560 - $(t) ))
if [ $left -gt 130 ]; then
  timeout $left $B/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; test_summary lcab_kernel_tests $? $O/lcab_kernel_tests.txt
fi
