#!/usr/bin/env bash
# H100 call with main's lcab-measure of 6ffa121 (the kernels of 60f86b2 / cf9111c: the backward's dQ conversion one
# wave after each head where the CTAs are about equally long): the backward re-measured at hd 64 and 128 for the H100
# profiles' refit after the kernel cost model learned that placement (every registered mask x 1K..32K x GQA/MHA,
# bf16, 2 warm-up and 5 timed repetitions; hd 256's kernel is unchanged).
#   carry: build-carry/sweep/lcab-measure.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/sweep
bash scripts/carry.sh unpack $B
device_info
flash_sweep $B/lcab-measure bwd 64,128 $O/lcab-measure-kernel-bwd-conversion-2026-11-24.jsonl 200
