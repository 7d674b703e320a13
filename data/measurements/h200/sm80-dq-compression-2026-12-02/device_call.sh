#!/usr/bin/env bash
# main 409c95a (CompressibleBuffer's fallback when cuMemCreate fails, its release on its own device, a 1 GiB test),
# one H200 (nvidia-h200): the three GPU test suites, then the mma.sync path (lcab_flash_sm80) backward with the dQ
# accumulator compressible (default) and plain (LCAB_FLASH_DQ_COMPRESSION=0), alternating, two rounds: that path
# zeroes the accumulator with a memset in front of each grid.
#   carry: build-carry/final/{lcab-kernel-bench,lcab_kernel_tests,lcab_measure_tests,lcab_cp_tests}.xz
source scripts/device_call_env.sh || exit 2
B=build-carry/final
bash scripts/carry.sh unpack $B
device_info
for suite in lcab_kernel_tests lcab_measure_tests lcab_cp_tests; do
  timeout 150 $B/$suite > $O/$suite.txt 2>&1; test_summary $suite $? $O/$suite.txt
done
grep "INFO" $O/lcab_kernel_tests.txt
python3 - /tmp <<'PY'
import json, sys
S = 32768
slices = [[128 * a, 128 * a + 128, 128 * a, 128 * (a + 1), "full"] for a in range(S // 128)]
json.dump({"seqlen": S, "slices": slices}, open(f"{sys.argv[1]}/band1.json", "w"))
PY
for round in 1 2; do
  for c in 1 0; do
    LCAB_FLASH_DQ_COMPRESSION=$c timeout 200 $B/lcab-kernel-bench --impl lcab_flash_sm80 \
      --mask causal_document,sliding_window_causal,file:/tmp/band1.json --seqlen 32k --head-dim 128 --pass bwd \
      --warmup 3 --iters 10 --json $O/sm80-compression$c.jsonl > /dev/null || echo "FAILED $c long"
    LCAB_FLASH_DQ_COMPRESSION=$c timeout 200 $B/lcab-kernel-bench --impl lcab_flash_sm80 --mask full,causal \
      --seqlen 16k --head-dim 128 --pass bwd --warmup 3 --iters 10 --json $O/sm80-compression$c.jsonl > /dev/null ||
      echo "FAILED $c short"
  done
  echo "round $round done t=$(t)"
done
python3 scripts/ab_compare.py $O/sm80-compression0.jsonl $O/sm80-compression1.jsonl | tee $O/sm80-summary.txt
