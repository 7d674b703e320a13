#!/usr/bin/env bash
# H200 call with main's binaries of 14146f2 (the backward's idle key halves): lcab_kernel_tests, then the backward
# re-measured at hd 64 and 128 for the profile's refit (every registered mask x 1K..32K x GQA/MHA, bf16, 2 warm-up and
# 5 timed repetitions; hd 256's kernel is unchanged).
#   carry: build-carry/idle-final/{lcab-measure,lcab_kernel_tests,...}.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/idle-final
bash scripts/carry.sh unpack $B
device_info
timeout 240 $B/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; test_summary kernel $? $O/lcab_kernel_tests.txt
# (its records were moved to data/measurements/GPU/lcab-measure-kernel-bwd-idle-2026-11-24.jsonl.gz)
flash_sweep $B/lcab-measure bwd 64,128 $O/lcab-measure-kernel-bwd-idle-2026-11-24.jsonl 200
