#!/usr/bin/env bash
# Call 2 (call 1's forward records and Nsight Compute output did not come back: the device tool returns 8 files).
# The forward A/B again, with new2 (the single-buffered forward whose first V is loaded with Q and the first K):
# GPU tests of new2, lcab_flash_sm80's forward of base, loader, new and new2 (2 rounds, hd 128 and 64), the same at
# an A100's shared-memory carveout (hd 128), and Nsight Compute's launch statistics and occupancy of each build's
# forward at full 16K, hd 128 (clocks left alone). Everything comes back as one archive, all.tgz.
top=$OUT
trap 'cd "$top" && tar czf all.tgz fwd a100 ncu 2> /dev/null && rm -rf fwd a100 ncu' EXIT
mkdir -p "$top/fwd" "$top/a100" "$top/ncu"
OUT=$top/fwd IMPL=lcab_flash_sm80 PASS=fwd HEAD_DIMS="128 64" ROUNDS=2 TESTS_TIMEOUT=400 SASS_MATCH=flash_forward_kernel \
  bash scripts/ab_device_call.sh --tests new2 base loader new new2
OUT=$top/a100 IMPL=lcab_flash_sm80 PASS=fwd HEAD_DIMS="128" ROUNDS=2 SASS_MATCH=flash_forward_kernel \
  bash scripts/ab_device_call.sh base-a100 new-a100 new2-a100
OUT=$top/ncu
source scripts/device_call_env.sh || exit 2
trap 'cd "$top" && tar czf all.tgz fwd a100 ncu 2> /dev/null && rm -rf fwd a100 ncu' EXIT
for v in base new new2 base-a100 new-a100 new2-a100; do
  timeout 90 ncu --clock-control none --kernel-name regex:flash_forward_kernel --launch-count 1 \
    --section LaunchStats --section Occupancy --section SpeedOfLight --page details --csv \
    build-carry/$v/lcab-kernel-bench --impl lcab_flash_sm80 --mask full --seqlen 16k --head-dim 128 --pass fwd \
    --warmup 0 --iters 1 > "$O/ncu-$v.csv" 2> "$O/ncu-$v.err"
  echo "ncu $v rc=$? t=$(t)"
  grep -E '"(Shared Memory Configuration Size|Dynamic Shared Memory Per Block|Block Limit Shared Mem|Block Limit Registers|Theoretical Occupancy|Achieved Occupancy|Duration|SM Frequency)"' "$O/ncu-$v.csv" |
    awk -F'","' '{ gsub(/"/, "", $NF); printf "%s=%s %s; ", $(NF-2), $NF, $(NF-1) } END { print "" }'
done
