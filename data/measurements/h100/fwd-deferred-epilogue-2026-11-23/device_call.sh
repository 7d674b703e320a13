#!/usr/bin/env bash
# H100 call: the forward's epilogue deferred until the next item's first S is on the tensor cores (hd 64 and 128;
# hd 256 stages O in its Q buffer and keeps the epilogue in place). GPU kernel tests; an A/B of the forward against
# main's binary (base), three rounds in alternating order, at hd 64, 128 and 256 on the headline points and 8K
# (short documents, the window); then (SWEEP=1) the forward sweep of lcab_flash at hd 64 and 128 (SWEEP_HEAD_DIMS)
# with the new binary (every mask x 1K-32K x GQA/MHA) for the model's refit, where the new binary is not slower
# over the A/B.
#   carry: build-carry/{apps/lcab-kernel-bench,apps/lcab-measure,tests/lcab_kernel_tests,base/lcab-kernel-bench}
#          (gzipped; unpacked first)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
left() { echo $(( ${BUDGET:-585} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
# A quick run first: a kernel that hangs or fails ends the call here.
timeout 60 $B/apps/lcab-kernel-bench --impl lcab_flash --pass fwd --mask causal_document,sliding_window_causal \
  --seqlen 8k --head-dim 64,128,256 --warmup 1 --iters 3 > $O/smoke.txt 2>&1
rc=$?; echo "smoke rc=$rc t=$(( $(date +%s) - T0 ))"; cat $O/smoke.txt
[[ $rc == 0 ]] || exit 1
if [[ ${TESTS:-1} == 1 ]]; then
  timeout 300 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
  echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
  grep -E "FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
fi
if [[ ${AB:-1} == 1 ]]; then
  for v in base new new base base new; do
    bin=$B/apps/lcab-kernel-bench; [[ $v == base ]] && bin=$B/base/lcab-kernel-bench
    for m in "full,causal 16384" "causal_document,sliding_window_causal:window=1024,block_causal_document 32768" \
             "causal_document,sliding_window_causal:window=1024 8192"; do
      set -- $m
      timeout 120 $bin --impl lcab_flash --pass fwd --mask "$1" --seqlen $2 --heads 64 --kv-heads 8 \
        --head-dim ${AB_HEAD_DIMS:-64,128,256} --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$v.jsonl 2>&1 \
        | sed "s/^/$v /" >> $O/ab.txt
    done
  done
  echo "ab t=$(( $(date +%s) - T0 ))"
  python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-new.jsonl | tee $O/ab-summary.txt
fi
if [[ ${SWEEP:-1} == 1 ]] && python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-new.jsonl --require-not-slower > /dev/null; then
  masks="full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,\
sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,\
block_causal_document,block_sparse,variable_block_sparse"
  timeout $(left) $B/apps/lcab-measure kernel --impl lcab_flash --mask "$masks" --seqlen ${SEQLENS:-1k,2k,4k,8k,16k,32k} \
    --heads 64 --kv-heads 8,64 --head-dim ${SWEEP_HEAD_DIMS:-64,128} --dtype bf16 --pass fwd --warmup 2 --reps 5 \
    --out $O/lcab-measure-kernel-fwd.jsonl > /dev/null 2> $O/sweep.err
  echo "sweep rc=$? points=$(wc -l < $O/lcab-measure-kernel-fwd.jsonl) t=$(( $(date +%s) - T0 ))"
fi
