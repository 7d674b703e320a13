#!/usr/bin/env bash
# Device call 23 (H100): GPU kernel tests with the kv-head sections on both forward paths; A/B of the mma.sync
# path's forward (lcab_flash_sm80; base = heads-fastest grid order, apps = sections), interleaved, two rounds, and
# one Hopper-path point as a control (its order is unchanged).
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
timeout 200 build-carry/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "FAILED|Sections" $O/lcab_kernel_tests.txt | head
for round in 1 2; do
  for bin in base apps; do
    b=build-carry/$bin/lcab-kernel-bench
    $b --impl lcab_flash_sm80 --pass fwd --mask full,causal --seqlen 16k,32k --kv-heads 64 --head-dim 128 \
      --warmup 2 --iters 5 --json $O/ab-sm80-$bin.jsonl > /dev/null 2>> $O/ab.err
    $b --impl lcab_flash_sm80 --pass fwd --mask full --seqlen 32k --kv-heads 8 --head-dim 128 \
      --warmup 2 --iters 5 --json $O/ab-sm80-$bin.jsonl > /dev/null 2>> $O/ab.err
    $b --impl lcab_flash --pass fwd --mask full --seqlen 32k --kv-heads 64 --head-dim 128 \
      --warmup 3 --iters 10 --json $O/ab-sm90-$bin.jsonl > /dev/null 2>> $O/ab.err
    echo "ab round $round $bin t=$(( $(date +%s) - T0 ))"
  done
done
