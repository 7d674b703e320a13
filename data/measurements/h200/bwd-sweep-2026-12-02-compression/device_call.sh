#!/usr/bin/env bash
# H200 call (nvidia-h200) with main's lcab-measure of d34e57c (the dQ accumulator in compressible memory, the tail's
# conversion from locals): the backward of every registered mask x 1K..32K x 64/8 and 64/64 heads x hd 64/128/256
# and at 64K (hd 64/128), bf16, 2 warm-ups and 5 timed repetitions (the profiles' sweeps), to check the committed
# H200 profiles against the current kernels and refit them; then, as a diagnostic kept out of the fits, hd 64/128
# again at 1K..32K with LCAB_FLASH_DQ_COMPRESSION=0 (plain memory for the accumulator).
#   carry: build-carry/main/lcab-measure.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/main
bash scripts/carry.sh unpack $B
device_info
flash_sweep $B/lcab-measure bwd 64,128,256 $O/lcab-measure-kernel-bwd-compression-2026-12-02.jsonl 200
flash_sweep $B/lcab-measure bwd 128,64 $O/lcab-measure-kernel-bwd-64k-compression-2026-12-02.jsonl 200 64k
LCAB_FLASH_DQ_COMPRESSION=0 flash_sweep $B/lcab-measure bwd 64,128 $O/plain-dq-bwd-2026-12-02.jsonl 150
