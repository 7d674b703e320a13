#!/usr/bin/env bash
# The mma.sync kernels' ldmatrix addresses as one XOR per chunk pair % 4 plus immediates (chunk_pair_address,
# kernels/flash_common.cuh) against main 71683ef (head): main's three GPU test suites with the candidate's binaries,
# A/B of lcab_flash_sm80's forward and backward (2 rounds, hd 128 and 64), and Nsight Compute's instruction counts
# of each build's dK/dV kernel at full 16K, hd 128 (clocks left alone). Everything comes back as one archive, all.tgz.
top=$OUT
trap 'cd "$top" && tar czf all.tgz tests fwd bwd 2> /dev/null && rm -rf tests fwd bwd' EXIT
mkdir -p "$top/tests" "$top/fwd" "$top/bwd"
(
  OUT=$top/tests
  source scripts/device_call_env.sh || exit 2
  bash scripts/carry.sh unpack build-carry/cand > /dev/null
  device_info
  gpu_test_suites build-carry/cand 300
) || exit 1
OUT=$top/fwd IMPL=lcab_flash_sm80 PASS=fwd HEAD_DIMS="128 64" ROUNDS=2 SASS_MATCH=flash_forward_kernel \
  bash scripts/ab_device_call.sh head cand
OUT=$top/bwd IMPL=lcab_flash_sm80 PASS=bwd HEAD_DIMS="128 64" ROUNDS=2 SASS_MATCH=flash_dkdv_kernel \
  bash scripts/ab_device_call.sh head cand
OUT=$top/bwd
source scripts/device_call_env.sh || exit 2
trap 'cd "$top" && tar czf all.tgz tests fwd bwd 2> /dev/null && rm -rf tests fwd bwd' EXIT
for v in head cand; do
  timeout 60 ncu --clock-control none --kernel-name regex:flash_dkdv_kernel --launch-count 1 \
    --section SpeedOfLight --section InstructionStats --section WarpStateStats --page details --csv \
    build-carry/$v/lcab-kernel-bench --impl lcab_flash_sm80 --mask full --seqlen 16k --head-dim 128 --pass bwd \
    --warmup 0 --iters 1 > "$O/ncu-bwd-$v.csv" 2> "$O/ncu-bwd-$v.err"
  echo "ncu $v rc=$? t=$(t)"
  grep -E '"(Executed Instructions|Duration|SM Frequency|Warp Cycles Per Issued Instruction|Issue Slots Busy)"' "$O/ncu-bwd-$v.csv" |
    awk -F'","' '{ gsub(/"/, "", $NF); printf "%s=%s %s; ", $(NF-2), $NF, $(NF-1) } END { print "" }'
done
