#!/usr/bin/env bash
# H200 call (nvidia-h200) with main ad9e4e2's binaries (the backward's idle halves taken from MaskTiling; kernels
# unchanged since d34e57c): the three GPU test binaries, then lcab_flash at lengths no profile was fitted to (3K, 6K,
# 12K, 24K; the calls lasted 0.09 to 98 ms), to check the model's sustained-clock term out of sample against calls
# of every length: full, causal, causal_document, sliding_window_causal, 64 / 8 heads, hd 128 and 64, bf16, fwd and
# bwd, 2 warm-ups and 5 timed repetitions (the profiles' sweeps).
#   carry: build-carry/main/{lcab-measure,lcab_kernel_tests,lcab_measure_tests,lcab_cp_tests}.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/main
bash scripts/carry.sh unpack $B
device_info
timeout 300 $B/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; test_summary kernel $? $O/lcab_kernel_tests.txt
timeout 120 $B/lcab_measure_tests > $O/lcab_measure_tests.txt 2>&1; test_summary measure $? $O/lcab_measure_tests.txt
timeout 120 $B/lcab_cp_tests > $O/lcab_cp_tests.txt 2>&1; test_summary cp $? $O/lcab_cp_tests.txt
for pass in fwd bwd; do
  timeout 150 $B/lcab-measure kernel --impl lcab_flash --mask full,causal,causal_document,sliding_window_causal \
    --seqlen 3k,6k,12k,24k --heads 64 --kv-heads 8 --head-dim 128,64 --dtype bf16 --pass $pass --warmup 2 --reps 5 \
    --out $O/lcab-measure-kernel-$pass-lengths-2026-12-02.jsonl > /dev/null 2>> $O/sweep-$pass.err
  echo "$pass sweep rc=$? points=$(wc -l < $O/lcab-measure-kernel-$pass-lengths-2026-12-02.jsonl) t=$(t)"
done
