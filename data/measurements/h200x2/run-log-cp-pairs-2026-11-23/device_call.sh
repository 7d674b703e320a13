#!/usr/bin/env bash
# Two H200s: the CP campaign of cp-sections-2026-11-23 (ring with single-GPU baselines, allgather, ulysses,
# loongtrain U1R2W2; full/causal/causal_document at 64K-256K, 16/2 heads, hd 128) re-measured with the paired backward.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
B=build-carry/apps
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvidia-smi topo -m; } > $O/device.txt
common="--mask full,causal,causal_document --seqlen 64k,128k,256k --pass fwd,bwd --heads 16 --kv-heads 2 --head-dim 128 --gpus 2 --gpus-per-node 2 --warmup 1 --reps 3"
$B/lcab-measure cp --method ring $common --baseline --out $O/cp.jsonl > $O/cp.md 2>> $O/cp.err
$B/lcab-measure cp --method allgather $common --out $O/cp.jsonl >> $O/cp.md 2>> $O/cp.err
$B/lcab-measure cp --method ulysses $common --out $O/cp.jsonl >> $O/cp.md 2>> $O/cp.err
$B/lcab-measure cp --method loongtrain --ulysses 1 --ring 2 --windows 2 $common --out $O/cp.jsonl >> $O/cp.md 2>> $O/cp.err
echo "cp campaign t=$(( $(date +%s) - T0 )) records=$(wc -l < $O/cp.jsonl)"
