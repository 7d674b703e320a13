#!/usr/bin/env bash
# H100 call: the forward's epilogue and the backward's dS^T writes by stmatrix (four 8 x 8 matrices per instruction)
# instead of 32-bit shared stores, against main. TESTS=1: the new build's SASS counts against main's
# (scripts/sass_counts.py) and the GPU kernel tests. Then A/B with lcab-kernel-bench in the ROUNDS given (each round
# one process per build, head dim and pass), per cycle (scripts/ab_compare.py): bf16, 64/8 heads; fwd hd 128, 64
# and 256, bwd hd 128 and 64; causal_document, sliding_window_causal, block_causal_document at 32K, full and causal
# at 16K.
#   carry: build-carry/base/lcab-kernel-bench (main, 6ffe615), build-carry/new/lcab-kernel-bench and
#          build-carry/new/lcab_kernel_tests (this tree), gz
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
if [ "${TESTS:-0}" = 1 ]; then
  for v in base new; do /usr/local/cuda/bin/cuobjdump -sass $B/$v/lcab-kernel-bench > /tmp/sass-$v.txt; done
  python3 scripts/sass_counts.py --match 'flash_(forward_sm90|dkdv_sm90)' --baseline /tmp/sass-base.txt \
    < /tmp/sass-new.txt > $O/sass-counts.txt 2>&1
  grep -E "sm_90" $O/sass-counts.txt | grep bfloat | cut -c1-20,150-
  timeout 240 $B/new/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
  echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
  grep -E "^\[  FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
fi
for order in ${ROUNDS:-"base,new new,base base,new"}; do
  for v in ${order//,/ }; do
    for hd in 128 64 256; do
      timeout 200 $B/$v/lcab-kernel-bench --impl lcab_flash --mask causal_document,sliding_window_causal,block_causal_document \
        --seqlen 32k --head-dim $hd --pass fwd --warmup 3 --iters 10 --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd"
      timeout 200 $B/$v/lcab-kernel-bench --impl lcab_flash --mask full,causal --seqlen 16k --head-dim $hd --pass fwd \
        --warmup 3 --iters 10 --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd full"
      [ $hd = 256 ] && continue
      timeout 200 $B/$v/lcab-kernel-bench --impl lcab_flash --mask causal_document,sliding_window_causal,block_causal_document \
        --seqlen 32k --head-dim $hd --pass bwd --warmup 3 --iters 10 --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd bwd"
      timeout 200 $B/$v/lcab-kernel-bench --impl lcab_flash --mask full,causal --seqlen 16k --head-dim $hd --pass bwd \
        --warmup 3 --iters 10 --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd full bwd"
    done
  done
  echo "round $order done t=$(( $(date +%s) - T0 ))"
done
python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-new.jsonl | tee $O/ab-summary.txt
