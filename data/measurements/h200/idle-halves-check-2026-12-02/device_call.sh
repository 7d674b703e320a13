#!/usr/bin/env bash
# H200 call (nvidia-h200) with main's binaries of the idle-half model term (kernels unchanged since d34e57c): points
# no profile was fitted to, to check the term out of sample. The backward of sliding windows of 128..4096 keys
# (causal, and two symmetric ones), windows whose edges fall inside a 64-key half (300, 1000, 3000), and documents of
# other seeds, at 8K and 32K, 64 / 8 heads, hd 64 and 128, bf16, 2 warm-ups and 5 timed repetitions (the profiles'
# sweeps); then main's lcab_kernel_tests.
#   carry: build-carry/main/{lcab-measure,lcab_kernel_tests}.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/main
bash scripts/carry.sh unpack $B
device_info
masks=sliding_window_causal:window=128,sliding_window_causal:window=256,sliding_window_causal:window=300
masks=$masks,sliding_window_causal:window=512,sliding_window_causal:window=1000,sliding_window_causal:window=2048
masks=$masks,sliding_window_causal:window=3000,sliding_window_causal:window=4096,sliding_window:window=256
masks=$masks,sliding_window:window=2048,causal_document:seed=7,causal_document:seed=11,full_document:seed=7
timeout 200 $B/lcab-measure kernel --impl lcab_flash --mask "$masks" --seqlen 8k,32k --heads 64 --kv-heads 8 \
  --head-dim 128,64 --dtype bf16 --pass bwd --warmup 2 --reps 5 --out $O/lcab-measure-kernel-bwd-idle-check-2026-12-02.jsonl \
  > /dev/null 2> $O/sweep-bwd.err
echo "sweep rc=$? points=$(wc -l < $O/lcab-measure-kernel-bwd-idle-check-2026-12-02.jsonl) t=$(t)"
timeout 300 $B/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; test_summary kernel $? $O/lcab_kernel_tests.txt
