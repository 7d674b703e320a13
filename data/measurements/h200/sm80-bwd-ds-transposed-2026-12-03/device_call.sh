#!/usr/bin/env bash
# The mma.sync backward with dS^T staged as it is held (32-bit stores, read back by ldmatrix .trans) against main:
# GPU tests of the trial, A/B of lcab_flash_sm80's backward (2 rounds, hd 128 and 64), then one Nsight Compute launch
# of each build's dK/dV kernel at full 16K, hd 128 (clocks left alone).
IMPL=lcab_flash_sm80 PASS=bwd HEAD_DIMS="128 64" ROUNDS=2 TESTS_TIMEOUT=400 SASS_MATCH=flash_dkdv_kernel \
  bash scripts/ab_device_call.sh --tests dst base dst
source scripts/device_call_env.sh || exit 2
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
          --section SourceCounters --section ComputeWorkloadAnalysis --section InstructionStats
          --section MemoryWorkloadAnalysis_Tables)
for v in base dst; do
  timeout 120 ncu --clock-control none --kernel-name regex:flash_dkdv_kernel --launch-count 1 "${sections[@]}" \
    -f -o "$O/ncu-$v" build-carry/$v/lcab-kernel-bench --impl lcab_flash_sm80 --mask full --seqlen 16k \
    --head-dim 128 --pass bwd --warmup 0 --iters 1 > "$O/ncu-$v.log" 2>&1
  echo "ncu $v rc=$? t=$(t)"
  ncu --import "$O/ncu-$v.ncu-rep" --page details --csv > "$O/ncu-$v-details.csv" 2>/dev/null
  ncu --import "$O/ncu-$v.ncu-rep" --page source --csv --print-source sass 2>/dev/null | gzip -9n > "$O/ncu-$v-source.csv.gz"
  rm -f "$O/ncu-$v.ncu-rep"
done
