#!/usr/bin/env bash
# The mma.sync forward with one K and one V buffer (64 KiB per CTA at hd 128) and the tile loader that keeps one
# address per thread, against main: GPU tests of the trial, then lcab_flash_sm80's forward (base, loader = main's
# forward with the new loader, new = both; 2 rounds, hd 128 and 64), the same at an A100's shared-memory carveout
# (hd 128), the backward (whose loads take the new loader too), and Nsight Compute's launch statistics and occupancy
# of each build's forward at full 16K, hd 128, with and without the carveout (clocks left alone).
mkdir -p "$OUT/fwd" "$OUT/a100" "$OUT/bwd"
OUT=$OUT/fwd IMPL=lcab_flash_sm80 PASS=fwd HEAD_DIMS="128 64" ROUNDS=2 TESTS_TIMEOUT=400 SASS_MATCH=flash_forward_kernel \
  bash scripts/ab_device_call.sh --tests new base loader new
OUT=$OUT/a100 IMPL=lcab_flash_sm80 PASS=fwd HEAD_DIMS="128" ROUNDS=2 SASS_MATCH=flash_forward_kernel \
  bash scripts/ab_device_call.sh base-a100 new-a100
OUT=$OUT/bwd IMPL=lcab_flash_sm80 PASS=bwd HEAD_DIMS="128 64" ROUNDS=2 SASS_MATCH=flash_dkdv_kernel \
  bash scripts/ab_device_call.sh base new
OUT=$OUT/ncu
mkdir -p "$OUT"
source scripts/device_call_env.sh || exit 2
for v in base new base-a100 new-a100; do
  timeout 90 ncu --clock-control none --kernel-name regex:flash_forward_kernel --launch-count 1 \
    --section LaunchStats --section Occupancy --section SpeedOfLight --page details --csv \
    build-carry/$v/lcab-kernel-bench --impl lcab_flash_sm80 --mask full --seqlen 16k --head-dim 128 --pass fwd \
    --warmup 0 --iters 1 > "$O/ncu-$v.csv" 2> "$O/ncu-$v.err"
  echo "ncu $v rc=$? t=$(t)"
  grep -E '"(Shared Memory Configuration Size|Dynamic Shared Memory Per Block|Block Limit Shared Mem|Block Limit Registers|Theoretical Occupancy|Achieved Occupancy|Duration|SM Frequency)"' "$O/ncu-$v.csv" |
    awk -F'","' '{ gsub(/"/, "", $NF); printf "%s=%s %s; ", $(NF-2), $NF, $(NF-1) } END { print "" }'
done
