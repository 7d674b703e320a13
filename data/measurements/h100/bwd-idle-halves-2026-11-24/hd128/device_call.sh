#!/usr/bin/env bash
# Trial (2026-11-24), second build: the Hopper backward's consumer warpgroup skips a step whose 64 keys see none of
# the step's queries (an idle half of a partial tile, marked in the work list) at hd 64 and 128 (hd 128: the idle
# warpgroup still computes its dQ columns over the other half's keys) ("idle2", build-carry/idle2), against 7550023
# ("base", build-carry/adaptive). GPU kernel tests of the idle2 build first.
source scripts/device_call_env.sh || exit 2
B=build-carry
bash scripts/carry.sh unpack $B/adaptive $B/idle2
device_info
timeout 240 $B/idle2/lcab_kernel_tests > $O/lcab_kernel_tests-idle2.txt 2>&1
rc=$?; test_summary idle2 $rc $O/lcab_kernel_tests-idle2.txt
[ $rc = 0 ] || exit 1
bench() {  # NAME BIN
  local name=$1 bin=$2
  for hd in 64 128; do
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
  bench idle2 $B/idle2/lcab-kernel-bench
  echo "round $round t=$(t)"
done
python3 scripts/ab_compare.py --per-cycle $O/ab-base.jsonl $O/ab-idle2.jsonl | tee $O/ab-summary-idle2.txt
