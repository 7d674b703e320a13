#!/usr/bin/env bash
# H100 call: lcab-kernel-bench built from main (3057372) with patches/timeline.patch (a diagnostic build: every block
# of the Hopper backward's grid stamps the global timer at its start, when its K and V were ready (a conversion block:
# when its head was done), when its steps ended and when it ended, with its SM and grid item; the last call's blocks
# are written to LCAB_BWD_TIMELINE_OUT). bf16, 64 / 8 heads, 1 warm-up and 2 timed calls per point.
#   carry: build-carry/timeline/lcab-kernel-bench.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/timeline
bash scripts/carry.sh unpack $B
device_info
point() {  # NAME MASK SEQLEN HEAD_DIM
  LCAB_BWD_TIMELINE_OUT=$O/$1.txt timeout 120 $B/lcab-kernel-bench --impl lcab_flash --mask "$2" --seqlen "$3" \
    --head-dim "$4" --pass bwd --warmup 1 --iters 2 --json $O/bench.jsonl > $O/$1.log 2>&1
  echo "$1 rc=$? blocks=$(wc -l < $O/$1.txt) t=$(t)"
}
point window-32k-hd128 sliding_window_causal 32k 128
point window-32k-hd64 sliding_window_causal 32k 64
point causal_document-32k-hd128 causal_document 32k 128
point full-16k-hd128 full 16k 128
point block_causal_document-32k-hd128 block_causal_document 32k 128
