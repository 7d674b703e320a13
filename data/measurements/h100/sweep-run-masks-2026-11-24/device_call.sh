#!/usr/bin/env bash
# H100 call: lcab_flash re-measured for the model's refit after the run masks (forward: every partial tile; backward:
# the block-sparse masks' second kernel) and hd 256's row totals. The forward sweep as the profile's last one
# (every registered mask x 1K..32K x GQA/MHA x hd 64/128/256, bf16, 2 warm-up and 5 timed repetitions), then the
# backward of block_sparse and variable_block_sparse (the only masks whose backward kernel changed) at hd 64/128.
#   carry: build-carry/apps/lcab-measure (gz; built from this commit's parent, clean tree)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
masks=full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse
timeout 420 $B/apps/lcab-measure kernel --impl lcab_flash --mask $masks --seqlen 1k,2k,4k,8k,16k,32k --heads 64 \
  --kv-heads 8,64 --head-dim 64,128,256 --dtype bf16 --pass fwd --warmup 2 --reps 5 \
  --out $O/lcab-measure-kernel-fwd-run-masks-2026-11-24.jsonl > /dev/null 2> $O/sweep-fwd.err
echo "fwd sweep rc=$? points=$(wc -l < $O/lcab-measure-kernel-fwd-run-masks-2026-11-24.jsonl) t=$(( $(date +%s) - T0 ))"
timeout 150 $B/apps/lcab-measure kernel --impl lcab_flash --mask block_sparse,variable_block_sparse --seqlen 1k,2k,4k,8k,16k,32k \
  --heads 64 --kv-heads 8,64 --head-dim 64,128 --dtype bf16 --pass bwd --warmup 2 --reps 5 \
  --out $O/lcab-measure-kernel-bwd-block-sparse-2026-11-24.jsonl > /dev/null 2> $O/sweep-bwd.err
echo "bwd sweep rc=$? points=$(wc -l < $O/lcab-measure-kernel-bwd-block-sparse-2026-11-24.jsonl) t=$(( $(date +%s) - T0 ))"
