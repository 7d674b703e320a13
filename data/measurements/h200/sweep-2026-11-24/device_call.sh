#!/usr/bin/env bash
# nvidia-h200-x2 call: the GPU tests of main's binaries on two H200s (lcab_cp_tests on both GPUs; then
# lcab_kernel_tests on GPU 0 beside lcab_measure_tests on GPU 1), then lcab_flash re-measured for the H200 profile's
# refit: the forward sweep on GPU 0 beside the backward sweep on GPU 1 (every registered mask x 1K..32K x GQA/MHA x
# hd 64/128/256, bf16, 2 warm-up and 5 timed repetitions, as the H100's refit of 2026-11-24; hd 256's backward last).
#   carry: build-carry/h200/{lcab-measure,lcab_kernel_tests,lcab_cp_tests,lcab_measure_tests}.xz (built from main,
#   stripped and xz-compressed so that they fit beside the tree in the device tool's 64 MiB)
B=build-carry/h200
for f in $B/*.xz; do xz -d -f "$f" 2>/dev/null || python3 -c 'import lzma,sys; open(sys.argv[1][:-3],"wb").write(lzma.open(sys.argv[1]).read())' "$f"; done
chmod +x $B/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
t() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( 575 - $(t) )); }
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
nvidia-smi topo -m > $O/topo.txt 2>&1
summary() { echo "$1 rc=$2 $(grep -E '^\[  (PASSED|FAILED)' $3 | tr '\n' ' ') t=$(t)"; grep -E "^\[  FAILED|Failure" $3 | head -10; }
timeout 200 $B/lcab_cp_tests > $O/lcab_cp_tests.txt 2>&1; summary cp $? $O/lcab_cp_tests.txt
CUDA_VISIBLE_DEVICES=0 timeout 200 $B/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1 & k=$!
CUDA_VISIBLE_DEVICES=1 timeout 200 $B/lcab_measure_tests > $O/lcab_measure_tests.txt 2>&1; m=$?
wait $k; kr=$?
summary kernel $kr $O/lcab_kernel_tests.txt; summary measure $m $O/lcab_measure_tests.txt
masks=full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse
sweep() {  # GPU PASS HEAD_DIMS FILE
  CUDA_VISIBLE_DEVICES=$1 timeout $(left) $B/lcab-measure kernel --impl lcab_flash --mask $masks \
    --seqlen 1k,2k,4k,8k,16k,32k --heads 64 --kv-heads 8,64 --head-dim $3 --dtype bf16 --pass $2 --warmup 2 --reps 5 \
    --out $O/$4 > /dev/null 2>> $O/sweep-$2.err
  echo "$2 sweep hd $3 rc=$? points=$(wc -l < $O/$4) t=$(t)"
}
sweep 0 fwd 64,128,256 lcab-measure-kernel-fwd-2026-11-24.jsonl &
f=$!
sweep 1 bwd 64,128 lcab-measure-kernel-bwd-2026-11-24.jsonl
sweep 1 bwd 256 lcab-measure-kernel-bwd-2026-11-24.jsonl
wait $f
