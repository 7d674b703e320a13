#!/usr/bin/env bash
# Device call 14 (H100): GPU tests with the promoted launch order, then the backward under promotion factors.
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
timeout 200 build-carry/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep FAILED $O/lcab_kernel_tests.txt | head
B="build-carry/apps/lcab-kernel-bench --impl lcab_flash --heads 64 --kv-heads 8 --head-dim 128 --dtype bf16 --pass bwd --warmup 3 --iters 7"
for rep in 1 2; do
for f in 0 2 4 16 1000000; do
  LCAB_GRID_PROMOTE_FACTOR=$f $B --mask causal,causal_document,share_question,block_causal_document,full,prefix_lm_causal \
    --seqlen 4k,8k,16k,32k --json $O/factor$f.jsonl 2>&1 | grep '^| lcab' | sed "s/^/factor=$f rep=$rep /"
  echo "t=$(( $(date +%s) - T0 ))"
  [ $(( $(date +%s) - T0 )) -gt 540 ] && exit 0
done
done
