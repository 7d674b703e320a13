#!/usr/bin/env bash
# The headline comparison of issues 3 and 4 (scripts/headline_benchmark.sh: lcab_flash and cudnn through lcab-measure
# with the PyTorch peers in one run) with main's binaries after the conversion's placement (60f86b2's kernels), one H100.
#   carry: build-carry/headconv/{lcab-measure,lcab-predict}.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/headconv
bash scripts/carry.sh unpack $B
mkdir -p $B/apps && ln -sf ../lcab-measure $B/apps/lcab-measure && ln -sf ../lcab-predict $B/apps/lcab-predict
device_info
BUILD=$B timeout $(( 560 - $(t) )) scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
echo "headline rc=$? t=$(t)"; cat $O/headline.md
