#!/usr/bin/env bash
# H100 call with main's lcab-measure of 2957b7c (the backward's accumulator zeroed in its grid's tail for the next
# call, no memset in front): the backward re-measured at hd 64, 128 and 256 (every registered mask x 1K..32K x
# GQA/MHA, bf16, 2 warm-up and 5 timed repetitions), to check the committed profiles against the kernels as they are.
#   carry: build-carry/final2/lcab-measure.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/final2
bash scripts/carry.sh unpack $B
device_info
flash_sweep $B/lcab-measure bwd 64,128,256 $O/lcab-measure-kernel-bwd-rezero-2026-11-25.jsonl 300
