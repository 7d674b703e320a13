#!/usr/bin/env bash
# How the Hopper backward's (and forward's) time grows with the window at 32K: the per-CTA cost the tile counts
# leave over (issue 3). main's lcab-measure (920de43's kernels, unchanged since c85130c), one H100, 64 / 8 heads, hd 128,
# bf16; CUPTI's kernel list per record separates the grid from the passes in front of it.
#   carry: build-carry/mwin/lcab-measure.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/mwin
bash scripts/carry.sh unpack $B
device_info
masks=full
for w in 256 512 1024 2048 4096 8192; do masks=$masks,sliding_window_causal:window=$w; done
timeout 400 $B/lcab-measure kernel --impl lcab_flash --mask "$masks" --seqlen 32k --heads 64 --kv-heads 8 \
  --head-dim 128 --dtype bf16 --pass fwd,bwd --warmup 2 --reps 5 --out $O/windows.jsonl > $O/windows.md 2> $O/windows.err
echo "rc=$? points=$(wc -l < $O/windows.jsonl) t=$(t)"; cat $O/windows.md
