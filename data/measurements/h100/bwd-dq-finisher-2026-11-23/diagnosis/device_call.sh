#!/usr/bin/env bash
# H100 call: where the finisher's backward loses its time. Four builds side by side, two rounds (forward then reverse
# order), bf16, 64/8 heads, hd 64 and 128: base (main's kernel), smem (main's kernel with the finisher's 33,024 bytes
# of extra shared memory reserved and unused: the L1 carve-out alone), idle (the finisher build whose finisher warp only
# takes the queues' entries: no counters, no conversion, dQ wrong; the consumers' side alone), new (the finisher build
# of no-consumer-fence/).   carry: build-carry/{base,smem,idle,new}/lcab-kernel-bench (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
for v in base smem idle new new idle smem base; do
  for m in "full,causal 16384" "causal_document,sliding_window_causal:window=1024,block_causal_document 32768"; do
    set -- $m
    timeout 120 $B/$v/lcab-kernel-bench --impl lcab_flash --pass bwd --mask "$1" --seqlen $2 --heads 64 --kv-heads 8 \
      --head-dim 64,128 --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$v.jsonl 2>&1 | sed "s/^/$v /" >> $O/ab.txt
  done
  echo "$v t=$(( $(date +%s) - T0 ))"
done
for v in smem idle new; do echo "== base vs $v"; python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-$v.jsonl; done \
  > $O/ab-summary.txt 2>&1
cat $O/ab-summary.txt
