#!/usr/bin/env bash
# H100 call: GPU kernel tests of main's binaries of 7550023 (the backward's conversion chunks adapted to the call),
# then its backward against main's before the tail (da6c85b, build-carry/base) at short and long sequences, side by
# side in two rounds of rotating order: the masked patterns at 1K, 4K and 32K and full and causal at 1K, 4K and 16K,
# hd 128, 64 and 256, 64/8 heads; per cycle by scripts/ab_compare.py.
#   carry: build-carry/base/lcab-kernel-bench.xz, build-carry/adaptive/{lcab-kernel-bench,lcab_kernel_tests}.xz
bash scripts/carry.sh unpack build-carry/base build-carry/adaptive
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
t() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
timeout 200 build-carry/adaptive/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; rc=$?
echo "tests rc=$rc $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(t)"
[ $rc = 0 ] || exit 1
masked=causal_document,sliding_window_causal,block_causal_document
for round in 0 1; do
  for k in 0 1; do
    v=$([ $(( (round + k) % 2 )) = 0 ] && echo base || echo adaptive)
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
python3 scripts/ab_compare.py --per-cycle $O/ab-base.jsonl $O/ab-adaptive.jsonl | tee $O/ab-summary-adaptive.txt
