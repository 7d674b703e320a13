#!/usr/bin/env bash
# Device call 18 (H200): GPU kernel tests; forward A/B of the conditional rescale (base = before) at GQA and MHA,
# hd 128 and 64, interleaved in two rounds; the lcab_flash sweep (every mask x 1K..64K x GQA/MHA x hd 64/128, fwd
# and bwd) and, with the time left, the same sweep of cudnn.
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
    build-carry/$bin/lcab-kernel-bench --impl lcab_flash --pass fwd --mask full,causal --seqlen 16k --kv-heads 8,64 \
      --head-dim 128,64 --warmup 3 --iters 10 --json $O/ab-fwd-$bin.jsonl > /dev/null 2>> $O/ab.err
    build-carry/$bin/lcab-kernel-bench --impl lcab_flash --pass fwd --mask sliding_window_causal --seqlen 32k \
      --kv-heads 8,64 --head-dim 128,64 --warmup 3 --iters 10 --json $O/ab-fwd-$bin.jsonl > /dev/null 2>> $O/ab.err
    echo "ab round $round $bin t=$(( $(date +%s) - T0 ))"
  done
done
masks=full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse
for impl in lcab_flash cudnn; do
  timeout $(( 585 - ($(date +%s) - T0) )) build-carry/apps/lcab-measure kernel --impl $impl --mask $masks \
    --seqlen 1k,2k,4k,8k,16k,32k,64k --pass fwd,bwd --heads 64 --kv-heads 8,64 --head-dim 128,64 --warmup 2 --reps 5 \
    --out $O/lcab-measure-kernel-h200-$impl.jsonl > $O/sweep-$impl.md 2> $O/sweep-$impl.err
  echo "sweep $impl rc=$? t=$(( $(date +%s) - T0 )) records=$(wc -l < $O/lcab-measure-kernel-h200-$impl.jsonl)"
done
