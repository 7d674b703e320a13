#!/usr/bin/env bash
# H100 call: lcab-kernel-bench of the spare-warp conversion build (../patches/warps.patch) with
# ../patches/timeline-on-warps.patch (a diagnostic build: per block its start, K/V ready, steps done and end, and its
# spare warps' head-done and conversion-end times), each point with the conversion CTAs (default) and on the spare
# warps (LCAB_FLASH_BACKWARD_CONVERSION=warps). bf16, 64 / 8 heads, hd 128, the last of three calls per point.
#   carry: build-carry/tl/real-bench.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/tl
bash scripts/carry.sh unpack $B
device_info
point() {  # NAME CONVERSION MASK SEQLEN
  LCAB_FLASH_BACKWARD_CONVERSION=$2 LCAB_BWD_TIMELINE_OUT=$O/$1.txt timeout 120 $B/real-bench --impl lcab_flash \
    --mask "$3" --seqlen "$4" --head-dim 128 --pass bwd --warmup 1 --iters 2 --json $O/bench.jsonl > $O/$1.log 2>&1
  echo "$1 rc=$? blocks=$(wc -l < $O/$1.txt) t=$(t)"
}
point window-ctas "" sliding_window_causal 32k
point window-warps warps sliding_window_causal 32k
point causal_document-ctas "" causal_document 32k
point causal_document-warps warps causal_document 32k
point full16k-warps warps full 16k
