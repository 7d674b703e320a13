#!/usr/bin/env bash
# H100 call: GPU kernel tests of the `rezero` build (main at bb7813d plus the tail writing zeros back over the dQ
# accumulator it converts, so that no memset runs before the next call; the tests now run every backward twice on
# its plan), then its backward against main's (7550023's kernels, build-carry/adaptive) at 1K, 4K and 32K (full and
# causal at 1K, 4K and 16K), hd 128, 64 and 256, 64/8 heads, two rounds in rotating order; per cycle.
#   carry: build-carry/adaptive/lcab-kernel-bench.xz, build-carry/rezero/{lcab-kernel-bench,lcab_kernel_tests}.xz
bash scripts/carry.sh unpack build-carry/adaptive build-carry/rezero
source scripts/device_call_env.sh
device_info
timeout 220 build-carry/rezero/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; rc=$?
test_summary kernel $rc $O/lcab_kernel_tests.txt
[ $rc = 0 ] || exit 1
masked=causal_document,sliding_window_causal,block_causal_document
for round in 0 1; do
  for k in 0 1; do
    v=$([ $(( (round + k) % 2 )) = 0 ] && echo adaptive || echo rezero)
    for hd in 128 64 256; do
      run() { timeout 120 build-carry/$v/lcab-kernel-bench --impl lcab_flash --mask "$1" --seqlen "$2" --head-dim $hd \
                --pass bwd --warmup 3 --iters 10 --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd $1 $2"; }
      run $masked,full,causal 1k,4k
      run $masked 32k
      run full,causal 16k
    done
  done
  echo "round $((round + 1)) done t=$(t)"
done
python3 scripts/ab_compare.py --per-cycle $O/ab-adaptive.jsonl $O/ab-rezero.jsonl | tee $O/ab-summary-rezero.txt
