#!/usr/bin/env bash
# H100 call: the GPU tests of main's binaries of f8ea1d8 (the backward's dQ conversion in the dK/dV grid's tail),
# then lcab_flash's backward re-measured for the H100 profile's refit (every registered mask x 1K..32K x GQA/MHA x
# hd 64/128/256, bf16, 2 warm-up and 5 timed repetitions, as the forward sweep of 2026-11-24; hd 256 last).
#   carry: build-carry/final/{lcab-measure,lcab_kernel_tests,lcab_measure_tests,lcab_cp_tests}.xz (scripts/carry.sh pack)
bash scripts/carry.sh unpack build-carry/final
B=build-carry/final
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
t() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( 580 - $(t) )); }
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
summary() { echo "$1 rc=$2 $(grep -E '^\[  (PASSED|FAILED)|tests, listed below' $3 | tr '\n' ' ') t=$(t)"; grep -E "^\[  FAILED|Failure" $3 | head -10; }
timeout 200 $B/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; summary kernel $? $O/lcab_kernel_tests.txt
timeout 120 $B/lcab_measure_tests > $O/lcab_measure_tests.txt 2>&1; summary measure $? $O/lcab_measure_tests.txt
timeout 60 $B/lcab_cp_tests > $O/lcab_cp_tests.txt 2>&1; summary cp $? $O/lcab_cp_tests.txt
masks=full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse
sweep() {  # HEAD_DIMS
  timeout $(left) $B/lcab-measure kernel --impl lcab_flash --mask $masks \
    --seqlen 1k,2k,4k,8k,16k,32k --heads 64 --kv-heads 8,64 --head-dim $1 --dtype bf16 --pass bwd --warmup 2 --reps 5 \
    --out $O/lcab-measure-kernel-bwd-tail-2026-11-24.jsonl > /dev/null 2>> $O/sweep-bwd.err
  echo "bwd sweep hd $1 rc=$? points=$(wc -l < $O/lcab-measure-kernel-bwd-tail-2026-11-24.jsonl) t=$(t)"
}
sweep 64,128
sweep 256
