#!/usr/bin/env bash
# nvidia-h100-x1 call: lcab_flash's backward sweep at hd 64 with the committed binaries of the decoupled warpgroups
# (the one head dim whose kernel changed; every registered mask x 1K..32K x 64/8 and 64/64 heads, bf16, 2 warm-up
# and 5 timed repetitions), for the H100 profiles' refit. The GPU tests of these binaries ran in
# ../bwd-decoupled-hd64-2026-11-24/call4-final/.
#   carry: build-carry/final/lcab-measure.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/final
bash scripts/carry.sh unpack $B
set -u
device_info
flash_sweep $B/lcab-measure bwd 64 $O/lcab-measure-kernel-bwd-decoupled-2026-11-24.jsonl 120
