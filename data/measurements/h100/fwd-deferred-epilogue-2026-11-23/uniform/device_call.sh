#!/usr/bin/env bash
# H100 call: the deferred epilogue with its condition made visibly warp-uniform (new), and the same source with the
# deferral switched off (N: the epilogue as a lambda, in place), against main's binary (base). The forward kernels'
# SASS of the three by cuobjdump; GPU kernel tests of new; forward A/B, three rounds in rotating order, hd 64 and
# 128, 64/8 heads, bf16.
#   carry: build-carry/{base,apps,N}/lcab-kernel-bench, tests/lcab_kernel_tests (gzipped)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
for v in base apps N; do
  /usr/local/cuda/bin/cuobjdump -sass $B/$v/lcab-kernel-bench 2>/dev/null \
    | awk '/Function : /{p=($0 ~ /flash_forward_sm90_kernelI13__nv_bfloat16Li(64|128)E/)} p' | gzip > $O/sass-$v.txt.gz
done
timeout 200 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
for v in base apps N  N apps base  base apps N; do
  for m in "full,causal 16384" "causal_document,sliding_window_causal:window=1024,block_causal_document 32768" \
           "causal_document,sliding_window_causal:window=1024 8192"; do
    set -- $m
    timeout 120 $B/$v/lcab-kernel-bench --impl lcab_flash --pass fwd --mask "$1" --seqlen $2 --heads 64 --kv-heads 8 \
      --head-dim 64,128 --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$v.jsonl 2>&1 | sed "s/^/$v /" >> $O/ab.txt
  done
done
echo "ab t=$(( $(date +%s) - T0 ))"
for v in apps N; do
  echo "== base -> $v"; python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-$v.jsonl
done > $O/ab-summary.txt
cat $O/ab-summary.txt
