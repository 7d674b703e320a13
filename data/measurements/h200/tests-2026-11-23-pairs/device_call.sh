#!/usr/bin/env bash
# H100 call: GPU kernel tests with paired backward launches; A/B of the backward (main's binary vs this one); the
# lcab_flash backward sweep (every mask x 1K..64K x GQA/MHA x hd 64/128); the headline comparison.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
if [[ ${TESTS:-1} == 1 ]]; then
  timeout 200 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
  echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
  grep FAILED $O/lcab_kernel_tests.txt | head
fi
bench() { # name bin masks seqlens
  timeout 120 $2 --impl lcab_flash --pass bwd --mask "$3" --seqlen $4 --heads 64 --kv-heads 8 --head-dim 128 \
    --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$1.jsonl 2>&1 | sed "s/^/$1 /" >> $O/ab.txt
}
if [[ ${AB:-1} == 1 ]]; then
  for order in "base pairs" "pairs base"; do
    for v in $order; do
      bin=$B/apps/lcab-kernel-bench; [[ $v == base ]] && bin=$B/base/lcab-kernel-bench
      bench $v $bin full,causal 16384
      bench $v $bin causal 4096,8192,32768,65536
      bench $v $bin causal_document 8192,32768,65536
      bench $v $bin sliding_window_causal:window=1024,block_causal_document 32768
    done
  done
  echo "ab t=$(( $(date +%s) - T0 ))"
fi
masks=full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse
if [[ ${SWEEP:-1} == 1 ]]; then
  timeout 200 $B/apps/lcab-measure kernel --impl lcab_flash --mask $masks --seqlen 1k,2k,4k,8k,16k,32k,64k \
    --pass bwd --heads 64 --kv-heads 8,64 --head-dim 128,64 --warmup 2 --reps 5 \
    --out $O/lcab-measure-kernel-bwd-pairs.jsonl > $O/bwd.md 2> $O/bwd.err
  echo "sweep rc=$? t=$(( $(date +%s) - T0 )) records=$(wc -l < $O/lcab-measure-kernel-bwd-pairs.jsonl)"
fi
if [[ "${HEADLINE:-1}" == 1 ]]; then
  BUILD=$B timeout $(( 590 - ($(date +%s) - T0) )) scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
  echo "headline rc=$? t=$(( $(date +%s) - T0 ))"; cat $O/headline.md
fi
