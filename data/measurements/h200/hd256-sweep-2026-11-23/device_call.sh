#!/usr/bin/env bash
# H200 call: the hd 256 sweep of lcab_flash (every mask x 1K-32K x GQA/MHA, fwd and bwd) for the H200 profile's
# hd 256 entries; binaries of the hd 256 commits (sm_90a cubins identical to the ones the tests ran).
#   carry: build-carry/apps/lcab-measure (gzipped; unpacked first)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
masks="full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,\
sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,\
block_causal_document,block_sparse,variable_block_sparse"
timeout ${BUDGET:-240} $B/apps/lcab-measure kernel --impl lcab_flash --mask "$masks" --seqlen 1k,2k,4k,8k,16k,32k \
  --heads 64 --kv-heads 8,64 --head-dim 256 --dtype bf16 --pass fwd,bwd --warmup 2 --reps 5 \
  --out $O/lcab-measure-kernel-hd256.jsonl > /dev/null 2> $O/sweep.err
echo "sweep rc=$? points=$(wc -l < $O/lcab-measure-kernel-hd256.jsonl) t=$(( $(date +%s) - T0 ))"
