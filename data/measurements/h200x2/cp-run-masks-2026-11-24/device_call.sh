#!/usr/bin/env bash
# Two H200s: the CP campaign of cp-pairs-2026-11-23 (ring with single-GPU baselines, allgather, ulysses, loongtrain
# U1R2W2; full/causal/causal_document at 64K-256K, 16/2 heads, hd 128) re-measured with main's kernels since the run
# masks (bca61b7), for the H200 profile's refit beside the kernel sweeps of data/measurements/h200/sweep-2026-11-24/.
#   carry: build-carry/h200/lcab-measure.xz (stripped, xz-compressed)
B=build-carry/h200
for f in $B/*.xz; do xz -d -f "$f" 2>/dev/null || python3 -c 'import lzma,sys; open(sys.argv[1][:-3],"wb").write(lzma.open(sys.argv[1]).read())' "$f"; done
chmod +x $B/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
{ nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,power.limit --format=csv; nvidia-smi topo -m; } > $O/device.txt
common="--mask full,causal,causal_document --seqlen 64k,128k,256k --pass fwd,bwd --heads 16 --kv-heads 2 --head-dim 128 --gpus 2 --gpus-per-node 2 --warmup 1 --reps 3"
run() { timeout $(( 570 - ($(date +%s) - T0) )) $B/lcab-measure cp "$@" $common --out $O/cp.jsonl >> $O/cp.md 2>> $O/cp.err
        echo "$1 $2 rc=$? t=$(( $(date +%s) - T0 )) records=$(wc -l < $O/cp.jsonl)"; }
run --method ring --baseline
run --method allgather
run --method ulysses
run --method loongtrain --ulysses 1 --ring 2 --windows 2
