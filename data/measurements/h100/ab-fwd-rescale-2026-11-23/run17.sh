#!/usr/bin/env bash
# Device call 17 (H100): the growing-score tests against a forward whose O rescale is removed on purpose (they must
# fail, the others pass), then the lcab_flash forward sweep with the conditional rescale (every mask x 1K..64K x
# GQA/MHA x hd 64/128).
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
timeout 150 build-carry/broken/lcab_kernel_tests --gtest_filter='Masks/*' > $O/broken_tests.txt 2>&1
echo "broken tests rc=$? t=$(( $(date +%s) - T0 ))"; grep -E '^\[  (PASSED|FAILED)|^\[  FAILED' $O/broken_tests.txt
masks=full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse
timeout 300 build-carry/apps/lcab-measure kernel --impl lcab_flash --mask $masks --seqlen 1k,2k,4k,8k,16k,32k,64k \
  --pass fwd --heads 64 --kv-heads 8,64 --head-dim 128,64 --warmup 2 --reps 5 \
  --out $O/lcab-measure-kernel-fwd-rescale.jsonl > $O/fwd.md 2> $O/fwd.err
echo "sweep rc=$? t=$(( $(date +%s) - T0 )) records=$(wc -l < $O/lcab-measure-kernel-fwd-rescale.jsonl)"
