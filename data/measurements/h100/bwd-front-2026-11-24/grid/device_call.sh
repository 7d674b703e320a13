#!/usr/bin/env bash
# Trial 2 (2026-11-24): the backward's preprocess (delta, dQ accumulator zeroed) as CTAs of the dK/dV grid, slices of
# a unit's rows placed two waves ahead of its first dK/dV CTA, the first units' slices first ("grid",
# build-carry/front2), against 7550023's memset and delta launches ahead of the grid ("base", build-carry/adaptive).
# GPU kernel tests of the grid build first.
source scripts/device_call_env.sh || exit 2
B=build-carry
bash scripts/carry.sh unpack $B/adaptive $B/front2
device_info
timeout 240 $B/front2/lcab_kernel_tests > $O/lcab_kernel_tests-grid.txt 2>&1
rc=$?; test_summary grid $rc $O/lcab_kernel_tests-grid.txt
[ $rc = 0 ] || exit 1
bench() {  # NAME BIN
  local name=$1 bin=$2
  for hd in 128 64; do
    common=(--impl lcab_flash --head-dim $hd --pass bwd --warmup 3 --iters 10 --json $O/ab-$name.jsonl)
    timeout 150 $bin --mask causal_document,sliding_window_causal,block_causal_document --seqlen 32k \
      "${common[@]}" > /dev/null || echo "FAILED $name $hd long"
    timeout 150 $bin --mask full,causal --seqlen 16k "${common[@]}" > /dev/null || echo "FAILED $name $hd 16k"
    timeout 150 $bin --mask causal,sliding_window_causal,causal_document --seqlen 1k,4k "${common[@]}" \
      > /dev/null || echo "FAILED $name $hd short"
  done
}
for round in 1 2 3; do
  bench base $B/adaptive/lcab-kernel-bench
  bench grid $B/front2/lcab-kernel-bench
  echo "round $round t=$(t)"
done
python3 scripts/ab_compare.py --per-cycle $O/ab-base.jsonl $O/ab-grid.jsonl | tee $O/ab-summary-grid.txt
