#!/usr/bin/env bash
# H100 call: GPU kernel tests with the final hd 256 binaries (cudnn's ragged backward at hd 256 now reported
# unsupported on cuDNN 9.14); a diagnostic of the hd 256 backward (a build whose dQ reductions are compiled out,
# LCAB_DIAG_NO_DQ_REDUCTION, not committed: its dQ is wrong, its time says what the reductions cost); the hd 256
# sweep of lcab_flash (every mask x 1K-32K x GQA/MHA, fwd and bwd) for the model's hd 256 entries.
#   carry: build-carry/{apps/lcab-kernel-bench,apps/lcab-measure,apps/lcab-predict,tests/lcab_kernel_tests,
#          diag/lcab-kernel-bench} (gzipped; unpacked first)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
left() { echo $(( ${BUDGET:-585} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
if [[ ${TESTS:-1} == 1 ]]; then
  timeout 300 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
  echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
  grep -E "FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
fi
if [[ ${DIAG:-1} == 1 ]]; then
  for v in new diag new diag; do
    bin=$B/apps/lcab-kernel-bench; [[ $v == diag ]] && bin=$B/diag/lcab-kernel-bench
    timeout 60 $bin --impl lcab_flash --pass bwd --mask full,causal --seqlen 16384 --heads 64 --kv-heads 8 \
      --head-dim 256 --dtype bf16 --warmup 3 --iters 10 --json $O/diag-$v.jsonl 2>&1 | sed "s/^/$v /" >> $O/diag.txt
  done
  grep -E "full|causal" $O/diag.txt | grep -v "^.*#" | tail -8
fi
if [[ ${SWEEP:-1} == 1 ]]; then
  masks="full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,\
sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,\
block_causal_document,block_sparse,variable_block_sparse"
  timeout $(left) $B/apps/lcab-measure kernel --impl lcab_flash --mask "$masks" --seqlen ${SEQLENS:-1k,2k,4k,8k,16k,32k} \
    --heads 64 --kv-heads 8,64 --head-dim 256 --dtype bf16 --pass fwd,bwd --warmup 2 --reps 5 \
    --out $O/lcab-measure-kernel-hd256.jsonl > $O/sweep.txt 2> $O/sweep.err
  echo "sweep rc=$? points=$(wc -l < $O/lcab-measure-kernel-hd256.jsonl) t=$(( $(date +%s) - T0 ))"
  tail -3 $O/sweep.err
fi
