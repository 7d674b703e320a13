#!/usr/bin/env bash
# H100 call: at hd 128 the forward's first tile of an item takes its run mask from the item's slot in shared memory
# (filled by the scheduler) instead of the work list in global memory, m1 (m1.patch), against main (base, aa80c5b's
# kernels).
# GPU kernel tests of m1; SASS counts against main; A/B with lcab-kernel-bench, ROUNDS rotating, per cycle:
# bf16, 64/8 heads, fwd, hd 128, 64, 256; causal_document, sliding_window_causal, block_causal_document and band1 (one
# whole 128 x 128 tile per q-tile row: all row cost) at 32K; full and causal at 16K.
#   carry: build-carry/{base,m1}/lcab-kernel-bench, build-carry/m1/lcab_kernel_tests (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; M=/tmp/masks; mkdir -p $O $M; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
for v in base m1; do /usr/local/cuda/bin/cuobjdump -sass $B/$v/lcab-kernel-bench > /tmp/sass-$v.txt; done
for v in m1; do
  python3 scripts/sass_counts.py --match flash_forward_sm90 --baseline /tmp/sass-base.txt < /tmp/sass-$v.txt > $O/sass-counts-$v.txt 2>&1
  echo "== $v"; grep -E "sm_90" $O/sass-counts-$v.txt | grep bfloat | cut -c1-20,150-
done
if [ "${TESTS:-1}" = 1 ]; then
  timeout 200 $B/m1/lcab_kernel_tests > $O/lcab_kernel_tests-m1.txt 2>&1; rc=$?
  echo "m1 tests rc=$rc $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests-m1.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
  grep -E "^\[  FAILED|Failure" $O/lcab_kernel_tests-m1.txt | head -10
  [ $rc = 0 ] || exit 1  # no timing of a build that fails or hangs
fi
python3 - $M <<'PY'
import json, sys
S = 32768
slices = [[128 * a, 128 * a + 128, 128 * a, 128 * (a + 1), "full"] for a in range(S // 128)]
json.dump({"seqlen": S, "slices": slices}, open(f"{sys.argv[1]}/band1.json", "w"))
PY
for order in ${ROUNDS:-"base,m1 m1,base base,m1"}; do
  for v in ${order//,/ }; do
    for hd in 128 64 256; do
      timeout 200 $B/$v/lcab-kernel-bench --impl lcab_flash --mask causal_document,sliding_window_causal,block_causal_document,file:$M/band1.json \
        --seqlen 32k --head-dim $hd --pass fwd --warmup 3 --iters 10 --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd"
      timeout 200 $B/$v/lcab-kernel-bench --impl lcab_flash --mask full,causal --seqlen 16k --head-dim $hd --pass fwd \
        --warmup 3 --iters 10 --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd full"
    done
  done
  echo "round $order done t=$(( $(date +%s) - T0 ))"
done
for v in m1; do echo "== $v against base"; python3 scripts/ab_compare.py --per-cycle $O/ab-base.jsonl $O/ab-$v.jsonl | sed 's|file:/tmp/masks/||' | tee $O/ab-summary-$v.txt; done
