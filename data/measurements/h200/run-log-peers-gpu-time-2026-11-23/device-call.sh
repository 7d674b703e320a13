#!/usr/bin/env bash
# Device call (H200): the kernel tests of the current binaries, then the PyTorch peers re-measured with the GPU's
# own time per repetition (measure/peers/torch_peers.py --time-basis kernel_sum, the default since 2026-11-23):
# SDPA's three backends on full and causal at 1K..64K x GQA/MHA x hd 64/128 (the sweep the profile fits), then
# FlexAttention on every pattern at FLEX_SEQLENS, FLEX_KV_HEADS, FLEX_HEAD_DIMS, resumable (records of an earlier call in build-carry/r/).
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 BUILD=build-carry
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export PATH="$PWD/build-carry/apps:$PATH"
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
cp build-carry/r/* $O/ 2>/dev/null
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee -a $O/device.txt
if [[ -n "${KERNEL_TESTS:-}" ]]; then
  build-carry/tests/lcab_kernel_tests > $O/kernel-tests.txt 2>&1; echo "kernel tests rc=$?"
  grep -E "PASSED|FAILED|SKIPPED" $O/kernel-tests.txt | tail -5
fi
P="python3 measure/peers/torch_peers.py --warmup 2 --reps 5"
all_masks="full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,\
sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,\
block_causal_document,block_sparse,variable_block_sparse"
if [[ -n "${SDPA:-}" ]]; then
  $P --impl torch_sdpa_cudnn,torch_flex --mask causal --seqlen 1k --pass fwd,bwd --heads 64 --kv-heads 8 \
    --head-dim 128 --out $O/smoke.jsonl > $O/smoke.md 2>&1
  head -c 1500 $O/smoke.jsonl; echo; cat $O/smoke.md | tail -4
  grep -q '"status": "ok"' $O/smoke.jsonl || { echo "smoke failed"; exit 1; }
  timeout ${SDPA_S:-300} $P --impl torch_sdpa_flash,torch_sdpa_cudnn,torch_sdpa_efficient --mask full,causal \
    --seqlen 1k,2k,4k,8k,16k,32k,64k --pass fwd,bwd --heads 64 --kv-heads 8,64 --head-dim 128,64 \
    --out $O/torch-peers-sdpa-gpu-time.jsonl > $O/sdpa.md 2> $O/sdpa.err; tail -2 $O/sdpa.err | cut -c1-200
  echo "sdpa stopped at $(( $(date +%s) - T0 )) s"
fi
left=$(( ${TOTAL_S:-560} - ($(date +%s) - T0) ))
timeout $left $P --impl torch_flex --mask "$all_masks" --seqlen ${FLEX_SEQLENS:-1k,2k} --pass fwd,bwd --heads 64 \
  --kv-heads ${FLEX_KV_HEADS:-8,64} --head-dim ${FLEX_HEAD_DIMS:-128,64} --out $O/torch-peers-flex-gpu-time.jsonl >> $O/flex.md 2>> $O/flex.err
tail -2 $O/flex.err | cut -c1-200
echo "flex stopped at $(( $(date +%s) - T0 )) s"
