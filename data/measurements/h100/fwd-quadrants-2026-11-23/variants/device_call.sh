#!/usr/bin/env bash
# H100 call: where the first version's full-tile slowdown comes from. Forward A/B of main's binary (base), the first
# version (new) and three variants of it, three rounds in rotating order, hd 64 and 128, 64/8 heads, bf16:
#   A: new without the output-only first product of S (WgmmaSS::overwrite): hd 128 then has ptxas' C7511
#      (wgmma serialized for register resources);
#   B: new with the half variants compiled out (every tile whole; the work list's quadrants ignored);
#   C: B without the output-only first product.
#   carry: build-carry/{base,apps,A,B,C}/lcab-kernel-bench (gzipped)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
for v in base apps A B C  C B A apps base  base apps A B C; do
  for m in "full,causal 16384" "causal_document,sliding_window_causal:window=1024 32768"; do
    set -- $m
    timeout 120 $B/$v/lcab-kernel-bench --impl lcab_flash --pass fwd --mask "$1" --seqlen $2 --heads 64 --kv-heads 8 \
      --head-dim 64,128 --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$v.jsonl 2>&1 | sed "s/^/$v /" >> $O/ab.txt
  done
done
echo "ab t=$(( $(date +%s) - T0 ))"
for v in apps A B C; do
  echo "== base -> $v"; python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-$v.jsonl
done | tee $O/variants-summary.txt
