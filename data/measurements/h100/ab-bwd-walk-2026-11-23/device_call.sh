#!/usr/bin/env bash
# Device call 9 (H100): backward walk-order experiment. Correctness of the cursor variants, then bwd timings.
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee -a $O/device.txt
for w in ${TEST_WALKS:-0 1 7}; do
  LCAB_FLASH_BWD_WALK=$w LCAB_FLASH_BWD_CHUNK=$([ $w = 7 ] && echo 4 || echo 0) timeout 200 build-carry/tests/lcab_kernel_tests \
    --gtest_filter='Masks/*' > $O/tests-walk$w.txt 2>&1; echo "tests walk=$w rc=$? $(grep -c '\[       OK' $O/tests-walk$w.txt) ok, $(grep -c FAILED $O/tests-walk$w.txt) failed lines, t=$(( $(date +%s) - T0 ))"
done
B="build-carry/apps/lcab-kernel-bench --impl lcab_flash --heads 64 --kv-heads 8 --head-dim 128 --dtype bf16 --pass bwd --warmup 3 --iters 7"
for rep in 1 2; do
for v in ${VARIANTS:-0:0 1:0 3:0 5:0 7:0 2:0 0:66 1:66}; do
  w=${v%:*}; c=${v#*:}
  for part in "full,causal 16k" "causal_document,sliding_window_causal,block_causal_document 32k"; do
    set -- $part
    LCAB_FLASH_BWD_WALK=$w LCAB_FLASH_BWD_CHUNK=$c $B --mask $1 --seqlen $2 --json $O/walk$w-chunk$c.jsonl 2>&1 \
      | grep '^| lcab' | sed "s/^/walk=$w chunk=$c rep=$rep /"
  done
  echo "t=$(( $(date +%s) - T0 ))"
  [ $(( $(date +%s) - T0 )) -gt ${TOTAL_S:-540} ] && exit 0
done
done
