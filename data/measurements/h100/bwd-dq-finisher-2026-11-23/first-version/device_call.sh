#!/usr/bin/env bash
# H100 call: the Hopper backward converting dQ in the dK/dV kernel (the finisher warp, dq_finisher.cuh) instead of
# a pass after it. GPU kernel tests of the new binary; A/B against main's binary (base), three rounds in alternating
# order, hd 64/128/256, 64/8 heads, bf16; then, where the new binary is not slower over the A/B (geometric mean), the
# backward sweep of lcab_flash (every mask x 1K-32K x GQA/MHA x hd 64/128/256) for the model's refit.
#   carry: build-carry/{base/lcab-kernel-bench,new/lcab-kernel-bench,new/lcab_kernel_tests,new/lcab-measure} (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
left() { echo $(( ${BUDGET:-585} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
timeout 60 $B/new/lcab-kernel-bench --impl lcab_flash --pass bwd --mask causal_document,sliding_window_causal \
  --seqlen 8k --head-dim 64,128,256 --warmup 1 --iters 3 > $O/smoke.txt 2>&1
rc=$?; echo "smoke rc=$rc"; cat $O/smoke.txt; [[ $rc == 0 ]] || exit 1
timeout 300 $B/new/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
tests_rc=$?
echo "tests rc=$tests_rc $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
for v in base new new base base new; do
  for m in "full,causal 16384" "causal_document,sliding_window_causal:window=1024,block_causal_document 32768" \
           "causal_document 8192"; do
    set -- $m
    timeout 120 $B/$v/lcab-kernel-bench --impl lcab_flash --pass bwd --mask "$1" --seqlen $2 --heads 64 --kv-heads 8 \
      --head-dim 64,128,256 --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$v.jsonl 2>&1 | sed "s/^/$v /" >> $O/ab.txt
  done
done
echo "ab t=$(( $(date +%s) - T0 ))"
python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-new.jsonl > $O/ab-summary.txt
cat $O/ab-summary.txt
if [[ $tests_rc == 0 ]] && python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-new.jsonl --require-not-slower > /dev/null; then
  masks="full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,\
sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,\
block_causal_document,block_sparse,variable_block_sparse"
  timeout $(left) $B/new/lcab-measure kernel --impl lcab_flash --mask "$masks" --seqlen 1k,2k,4k,8k,16k,32k \
    --heads 64 --kv-heads 8,64 --head-dim 64,128,256 --dtype bf16 --pass bwd --warmup 2 --reps 5 \
    --out $O/lcab-measure-kernel-bwd.jsonl > /dev/null 2> $O/sweep.err
  echo "sweep rc=$? points=$(wc -l < $O/lcab-measure-kernel-bwd.jsonl) t=$(( $(date +%s) - T0 ))"
fi
