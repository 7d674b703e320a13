#!/usr/bin/env bash
# H200 call: GPU kernel tests with the final binaries of the hd 256 work (the H100's call
# data/measurements/h100/hd256-bwd-tma-2026-11-23 ran the same binaries), then lcab_flash and cudnn side by side at
# hd 256 and hd 128 (bf16, 64/8 heads: full and causal 16K, the masked patterns 32K; fwd and bwd).
#   carry: build-carry/{apps/lcab-measure,tests/lcab_kernel_tests} (gzipped; unpacked first)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
timeout 300 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
for hd in 256 128; do
  for part in "full,causal 16k" "causal_document,sliding_window_causal,block_causal_document 32k"; do
    set -- $part
    timeout 120 $B/apps/lcab-measure kernel --impl lcab_flash,cudnn --mask "$1" --seqlen $2 --heads 64 --kv-heads 8 \
      --head-dim $hd --dtype bf16 --pass fwd,bwd --warmup 3 --reps 7 --out $O/lcab-measure.jsonl 2>&1 \
      | grep -E "^\[" | sed 's/^/  /'
  done
  echo "hd$hd t=$(( $(date +%s) - T0 ))"
done
