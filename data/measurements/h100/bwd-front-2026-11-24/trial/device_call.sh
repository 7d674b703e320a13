#!/usr/bin/env bash
# Trial (2026-11-24): the backward's preprocess (delta, dQ accumulator zeroed) prepared in the dK/dV grid by the
# producer warpgroup's spare warps, the rest in a prologue launch ("front"), against 7550023's separate preprocess
# ("base", build-carry/adaptive); "prologue" is the front build with every slice in the prologue launch
# (LCAB_TRIAL_FRONT_IN_GRID=0, a knob of the trial build only). GPU kernel tests of the front build first.
source scripts/device_call_env.sh || exit 2
B=build-carry
bash scripts/carry.sh unpack $B/adaptive $B/front
device_info
timeout 240 $B/front/lcab_kernel_tests > $O/lcab_kernel_tests-front.txt 2>&1
rc=$?; test_summary front $rc $O/lcab_kernel_tests-front.txt
[ $rc = 0 ] || exit 1
bench() {  # NAME BIN [ENV...]
  local name=$1 bin=$2; shift 2
  for hd in 128 64; do
    common=(--impl lcab_flash --head-dim $hd --pass bwd --warmup 3 --iters 10 --json $O/ab-$name.jsonl)
    env "$@" timeout 150 $bin --mask causal_document,sliding_window_causal,block_causal_document --seqlen 32k \
      "${common[@]}" > /dev/null || echo "FAILED $name $hd long"
    env "$@" timeout 150 $bin --mask full,causal --seqlen 16k "${common[@]}" > /dev/null || echo "FAILED $name $hd 16k"
    env "$@" timeout 150 $bin --mask causal,sliding_window_causal,causal_document --seqlen 1k,4k "${common[@]}" \
      > /dev/null || echo "FAILED $name $hd short"
  done
}
for round in 1 2; do
  bench base $B/adaptive/lcab-kernel-bench
  bench front $B/front/lcab-kernel-bench
  bench prologue $B/front/lcab-kernel-bench LCAB_TRIAL_FRONT_IN_GRID=0
  echo "round $round t=$(t)"
done
for v in front prologue; do
  echo "== $v against base"
  python3 scripts/ab_compare.py --per-cycle $O/ab-base.jsonl $O/ab-$v.jsonl | tee $O/ab-summary-$v.txt
done
