#!/usr/bin/env bash
# H100 call with main's binaries of 14146f2 (the backward's idle key halves; its kernels' SASS is the one
# lcab_kernel_tests passed 84/84 with in ../hd128/): GPU tests (measure, cp), the
# backward re-measured at hd 64 and 128 for the profile's refit (every registered mask x 1K..32K x GQA/MHA, bf16,
# 2 warm-up and 5 timed repetitions; hd 256's kernel is unchanged), then the headline comparison of issues 3 and 4
# (scripts/headline_benchmark.sh: lcab_flash and cudnn with the PyTorch peers in one run).
#   carry: build-carry/idle-final/{lcab-measure,lcab-predict,lcab_*_tests}.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/idle-final
bash scripts/carry.sh unpack $B
mkdir -p $B/apps && ln -sf ../lcab-measure $B/apps/lcab-measure && ln -sf ../lcab-predict $B/apps/lcab-predict
device_info
timeout 60 $B/lcab_measure_tests > $O/lcab_measure_tests.txt 2>&1; test_summary measure $? $O/lcab_measure_tests.txt
timeout 60 $B/lcab_cp_tests > $O/lcab_cp_tests.txt 2>&1; test_summary cp $? $O/lcab_cp_tests.txt
# (its records were moved to data/measurements/GPU/lcab-measure-kernel-bwd-idle-2026-11-24.jsonl.gz)
flash_sweep $B/lcab-measure bwd 64,128 $O/lcab-measure-kernel-bwd-idle-2026-11-24.jsonl 170
BUILD=$B timeout $(( 590 - $(t) )) scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
echo "headline rc=$? t=$(t)"; cat $O/headline.md
