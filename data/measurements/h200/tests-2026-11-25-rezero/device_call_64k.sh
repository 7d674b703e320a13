#!/usr/bin/env bash
# The backward at 64K with main's lcab-measure of 2957b7c (every mask, 64 / 8 and 64 / 64 heads, hd 128 and 64, bf16,
# 2 warm-up and 5 timed repetitions): the 64K points of the refit after the tail's zeroing, whose earlier records
# (lcab-measure-kernel-bwd-64k-2026-11-25.jsonl.gz) were of the kernels with the memset in front.
#   carry: build-carry/final2/lcab-measure.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
device_info
bash scripts/carry.sh unpack build-carry/final2
masks=full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window
masks=$masks,sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal
masks=$masks,prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse
timeout 280 build-carry/final2/lcab-measure kernel --impl lcab_flash --mask "$masks" --seqlen 64k --heads 64 \
  --kv-heads 8,64 --head-dim 128,64 --dtype bf16 --pass bwd --warmup 2 --reps 5 \
  --out "$O/lcab-measure-kernel-bwd-64k-rezero-2026-11-25.jsonl" > /dev/null 2>> "$O/sweep-bwd-64k.err"
echo "bwd rc=$? points=$(wc -l < "$O/lcab-measure-kernel-bwd-64k-rezero-2026-11-25.jsonl") t=$(t)"
