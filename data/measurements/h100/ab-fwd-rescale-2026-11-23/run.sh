#!/usr/bin/env bash
# Device call 16 (H100): GPU kernel tests of the conditional-rescale forward, forward A/B (base = before, new =
# conditional rescale) interleaved in two rounds, then the headline comparison with the new binaries.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
timeout 200 build-carry/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep FAILED $O/lcab_kernel_tests.txt | head
for round in 1 2; do
  for bin in base apps; do
    b=build-carry/$bin/lcab-kernel-bench
    $b --impl lcab_flash --pass fwd --mask full,causal --seqlen 4k,16k,32k --kv-heads 8,64 --head-dim 128,64 \
      --warmup 5 --iters 20 --json $O/ab-fwd-$bin.jsonl > /dev/null 2>> $O/ab.err
    $b --impl lcab_flash --pass fwd --mask causal_document,sliding_window_causal,block_causal_document --seqlen 32k \
      --kv-heads 8,64 --head-dim 128,64 --warmup 5 --iters 20 --json $O/ab-fwd-$bin.jsonl > /dev/null 2>> $O/ab.err
    echo "ab round $round $bin t=$(( $(date +%s) - T0 ))"
  done
done
BUILD=build-carry timeout $(( 580 - ($(date +%s) - T0) )) scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
echo "headline rc=$? t=$(( $(date +%s) - T0 ))"; cat $O/headline.md
