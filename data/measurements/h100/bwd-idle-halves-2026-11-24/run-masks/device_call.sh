#!/usr/bin/env bash
# Trial (2026-11-24): the idle key halves in the backward's run-mask kernels too (marked per visit), "rmidle"
# (build-carry/rmidle), against main's 14146f2 ("base", build-carry/idle-final: idle halves on the slice-walking
# kernels only). Masks that take the run-mask kernel (block_sparse, variable_block_sparse) and the full mask as a
# control (its kernel is unchanged). GPU kernel tests of the new build first.
source scripts/device_call_env.sh || exit 2
bash scripts/carry.sh unpack build-carry/idle-final build-carry/rmidle
device_info
timeout 240 build-carry/rmidle/lcab_kernel_tests > $O/lcab_kernel_tests-rmidle.txt 2>&1
rc=$?; test_summary rmidle $rc $O/lcab_kernel_tests-rmidle.txt
[ $rc = 0 ] || exit 1
bench() {  # NAME BIN ROUND (lcab-measure skips points its --out file has: a file per round)
  for hd in 128 64; do
    timeout 150 $2 kernel --impl lcab_flash --mask block_sparse:block=64,block_sparse,variable_block_sparse \
      --seqlen 8k,32k --heads 64 --kv-heads 8 --head-dim $hd --dtype bf16 --pass bwd --warmup 2 --reps 5 \
      --out $O/ab-$1-r$3.jsonl > /dev/null 2>> $O/bench-$1.err || echo "FAILED $1 $hd masked"
    timeout 150 $2 kernel --impl lcab_flash --mask full --seqlen 16k --heads 64 --kv-heads 8 --head-dim $hd \
      --dtype bf16 --pass bwd --warmup 2 --reps 5 --out $O/ab-$1-r$3.jsonl > /dev/null 2>> $O/bench-$1.err || echo "FAILED $1 $hd full"
  done
}
for round in 1 2 3; do
  bench base build-carry/idle-final/lcab-measure $round
  bench rmidle build-carry/rmidle/lcab-measure $round
  echo "round $round t=$(t)"
done
for v in base rmidle; do cat $O/ab-$v-r1.jsonl $O/ab-$v-r2.jsonl $O/ab-$v-r3.jsonl > $O/ab-$v.jsonl; done
python3 scripts/ab_compare.py --per-cycle $O/ab-base.jsonl $O/ab-rmidle.jsonl | tee $O/ab-summary-rmidle.txt
