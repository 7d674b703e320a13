#!/usr/bin/env bash
# Device call 21/22 (H100, then H200): GPU kernel tests with the final kernels; the lcab_flash forward sweep (every
# mask x 1K..64K x GQA/MHA x hd 64/128); on the H100 (HEADLINE=1) the headline comparison.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
timeout 200 build-carry/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep FAILED $O/lcab_kernel_tests.txt | head
masks=full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse
timeout 250 build-carry/apps/lcab-measure kernel --impl lcab_flash --mask $masks --seqlen 1k,2k,4k,8k,16k,32k,64k \
  --pass fwd --heads 64 --kv-heads 8,64 --head-dim 128,64 --warmup 2 --reps 5 \
  --out $O/lcab-measure-kernel-fwd-sections.jsonl > $O/fwd.md 2> $O/fwd.err
echo "sweep rc=$? t=$(( $(date +%s) - T0 )) records=$(wc -l < $O/lcab-measure-kernel-fwd-sections.jsonl)"
if [[ "${HEADLINE:-0}" == 1 ]]; then
  BUILD=build-carry timeout $(( 585 - ($(date +%s) - T0) )) scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
  echo "headline rc=$? t=$(( $(date +%s) - T0 ))"; cat $O/headline.md
fi
