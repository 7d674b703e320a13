#!/usr/bin/env bash
# H200 call (nvidia-h200): main a6dedad's delta_kernel (base: the benches of 7f232a0 and lcab-measure of 24429a6,
# whose kernels are main's) against trial.patch (delta_kernel: each block takes 4 x 16 consecutive q rows of one
# (batch, head) at hd 128, heads fastest in the block order, every load of a thread's rows issued before its sums;
# main's kernel takes one 16 B vector of out and dout per thread, 16 rows of one q per block). GPU tests of the trial
# first; 3 rotating rounds of lcab-kernel-bench, bwd, hd 128, 64 and 256 (every head dim launches the kernel):
# causal_document, the window, block_causal_document and band1 at 32K, full and causal at 16K, full and
# causal_document at 1K and 4K; then lcab-measure (CUPTI: each kernel's GPU time) of both builds, bwd hd 128, full,
# causal_document and the window at 4K and 32K, for the delta kernel's own time.
#   carry: build-carry/base/lcab-kernel-bench.xz, build-carry/final/lcab-measure.xz (main),
#   build-carry/trialdelta/{lcab-kernel-bench,lcab_kernel_tests,lcab-measure}.xz
ROUNDS=3 PASS=bwd HEAD_DIMS="128 64 256" MASKS_EXTRA=full,causal_document SEQ_EXTRA=1k,4k \
  SASS_MATCH=delta_kernel TESTS_TIMEOUT=300 bash scripts/ab_device_call.sh --tests trialdelta base trialdelta || exit 1
source scripts/device_call_env.sh || exit 2
bash scripts/carry.sh unpack build-carry/final
for v in final trialdelta; do
  for part in "full,causal_document,sliding_window_causal 4k" "full,causal_document,sliding_window_causal 32k"; do
    set -- $part
    build-carry/$v/lcab-measure kernel --impl lcab_flash --mask "$1" --seqlen "$2" --dtype bf16 --heads 64 \
      --kv-heads 8 --head-dim 128 --pass bwd --warmup 3 --reps 7 --out "$O/measure-$v.jsonl" > /dev/null
  done
  python3 scripts/kernel_breakdown.py "$O/measure-$v.jsonl" --impl lcab_flash --pass bwd --reference full \
    > "$O/breakdown-$v.md"
  cat "$O/breakdown-$v.md"
done
