#!/usr/bin/env bash
# Device call 19 (two H200s): CP tests with the final kernels; the two-GPU CP campaign of cp-hopper-2026-11-22
# (ring with single-GPU baselines, allgather, ulysses, loongtrain U1R2W2; full/causal/causal_document at 64K-256K,
# 16/2 heads, hd 128) re-measured with the current kernels; on GPU 0, the hd 64 forward side by side (base = before
# the lazy rescale, apps = final: hd 64 as before, hd 128 lazy) and the hd 64 lcab_flash forward sweep re-measured.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
B=build-carry/apps
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvidia-smi topo -m; } > $O/device.txt
timeout 170 build-carry/tests/lcab_cp_tests --gtest_brief=1 > $O/lcab_cp_tests.txt 2>&1
echo "cp tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_cp_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep FAILED $O/lcab_cp_tests.txt | head
common="--mask full,causal,causal_document --seqlen 64k,128k,256k --pass fwd,bwd --heads 16 --kv-heads 2 --head-dim 128 --gpus 2 --gpus-per-node 2 --warmup 1 --reps 3"
$B/lcab-measure cp --method ring $common --baseline --out $O/cp.jsonl > $O/cp.md 2>> $O/cp.err
$B/lcab-measure cp --method allgather $common --out $O/cp.jsonl >> $O/cp.md 2>> $O/cp.err
$B/lcab-measure cp --method ulysses $common --out $O/cp.jsonl >> $O/cp.md 2>> $O/cp.err
$B/lcab-measure cp --method loongtrain --ulysses 1 --ring 2 --windows 2 $common --out $O/cp.jsonl >> $O/cp.md 2>> $O/cp.err
echo "cp campaign t=$(( $(date +%s) - T0 )) records=$(wc -l < $O/cp.jsonl)"
for round in 1 2; do
  for bin in base apps; do
    CUDA_VISIBLE_DEVICES=0 build-carry/$bin/lcab-kernel-bench --impl lcab_flash --pass fwd --mask full,causal --seqlen 16k \
      --kv-heads 8,64 --head-dim 64,128 --warmup 3 --iters 10 --json $O/ab-fwd-$bin.jsonl > /dev/null 2>> $O/ab.err
  done
done
echo "ab t=$(( $(date +%s) - T0 ))"
masks=full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse
CUDA_VISIBLE_DEVICES=0 timeout $(( 590 - ($(date +%s) - T0) )) $B/lcab-measure kernel --impl lcab_flash --mask $masks \
  --seqlen 1k,2k,4k,8k,16k,32k,64k --pass fwd --heads 64 --kv-heads 8,64 --head-dim 64 --warmup 2 --reps 5 \
  --out $O/lcab-measure-kernel-fwd-hd64.jsonl > $O/sweep-hd64.md 2> $O/sweep-hd64.err
echo "hd64 sweep rc=$? t=$(( $(date +%s) - T0 )) records=$(wc -l < $O/lcab-measure-kernel-fwd-hd64.jsonl)"
