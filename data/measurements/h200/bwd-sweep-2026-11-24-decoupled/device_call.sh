#!/usr/bin/env bash
# nvidia-h200 call: lcab_flash's backward sweep at hd 64 with the binaries of 72b0039 (the decoupled warpgroups; the
# one head dim whose kernel changed since ../bwd-sweep-2026-11-24-ring), for the H200 profiles' refit, after the GPU
# kernel tests of those binaries on this H200.
#   carry: build-carry/final/{lcab-measure,lcab_kernel_tests}.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/final
bash scripts/carry.sh unpack $B
set -u
device_info
timeout 200 $B/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; test_summary kernel $? $O/lcab_kernel_tests.txt
flash_sweep $B/lcab-measure bwd 64 $O/lcab-measure-kernel-bwd-decoupled-2026-11-24.jsonl 120
