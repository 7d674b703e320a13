#!/usr/bin/env bash
# The same backward at a fixed 64 q heads with 4, 8, 16 and 32 kv heads: the steps stay the same, the CTAs are
# 1024 to 8192 (the GQA group's q heads run in series in one CTA), so the grid's time against the CTA count gives the
# cost of a CTA apart from the constant tail. main's lcab-measure (build-carry/mwin), one H100.
source scripts/device_call_env.sh || exit 2
B=build-carry/mwin
bash scripts/carry.sh unpack $B
device_info
timeout 400 $B/lcab-measure kernel --impl lcab_flash --mask sliding_window_causal,sliding_window_causal:window=4096 \
  --seqlen 32k --heads 64 --kv-heads 4,8,16,32 --head-dim 128 --dtype bf16 --pass bwd --warmup 2 --reps 5 \
  --out $O/kv_heads.jsonl > $O/kv_heads.md 2> $O/kv_heads.err
echo "rc=$? points=$(wc -l < $O/kv_heads.jsonl) t=$(t)"; cat $O/kv_heads.md
