#!/usr/bin/env bash
# H100 call: the adopted version (new: the whole tiles' products as before, with constant key offsets and the
# accumulating first product; the output-only first product only in the half chains), against main's binary (base)
# and variant C of variants/ (the restructured loop with the halves compiled out, output-only products nowhere).
# GPU kernel tests of new; forward A/B, three rounds in rotating order, hd 64 and 128, 64/8 heads, bf16; then, where
# new is not slower than base over the A/B, the forward sweep of lcab_flash at hd 64 and 128 for the model's refit.
#   carry: build-carry/{base,apps,C}/lcab-kernel-bench, apps/lcab-measure, tests/lcab_kernel_tests (gzipped)
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
ls /usr/local/cuda/bin > $O/cuda-bin.txt 2>&1
timeout 60 $B/apps/lcab-kernel-bench --impl lcab_flash --pass fwd --mask causal_document,sliding_window_causal \
  --seqlen 8k --head-dim 64,128,256 --warmup 1 --iters 3 > $O/smoke.txt 2>&1
rc=$?; echo "smoke rc=$rc t=$(( $(date +%s) - T0 ))"; cat $O/smoke.txt
[[ $rc == 0 ]] || exit 1
timeout 300 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
for v in base apps C  C apps base  base apps C; do
  for m in "full,causal 16384" "causal_document,sliding_window_causal:window=1024,block_causal_document 32768" \
           "causal_document,sliding_window_causal:window=1024 8192"; do
    set -- $m
    timeout 120 $B/$v/lcab-kernel-bench --impl lcab_flash --pass fwd --mask "$1" --seqlen $2 --heads 64 --kv-heads 8 \
      --head-dim 64,128 --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$v.jsonl 2>&1 | sed "s/^/$v /" >> $O/ab.txt
  done
done
echo "ab t=$(( $(date +%s) - T0 ))"
for v in apps C; do
  echo "== base -> $v"; python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-$v.jsonl
done > $O/ab-summary.txt
cat $O/ab-summary.txt
if python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-apps.jsonl --require-not-slower > /dev/null; then
  masks="full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,\
sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,\
block_causal_document,block_sparse,variable_block_sparse"
  timeout $(left) $B/apps/lcab-measure kernel --impl lcab_flash --mask "$masks" --seqlen 1k,2k,4k,8k,16k,32k \
    --heads 64 --kv-heads 8,64 --head-dim 64,128 --dtype bf16 --pass fwd --warmup 2 --reps 5 \
    --out $O/lcab-measure-kernel-fwd.jsonl > /dev/null 2> $O/sweep.err
  echo "sweep rc=$? points=$(wc -l < $O/lcab-measure-kernel-fwd.jsonl) t=$(( $(date +%s) - T0 ))"
fi
