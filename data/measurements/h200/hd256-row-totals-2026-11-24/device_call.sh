#!/usr/bin/env bash
# H200 call: the final binaries of 2026-11-24 (hd 256's row totals under the last P V; hd 64/128 kernels unchanged)
# on an H200: the GPU kernel tests, then lcab-measure's kernel comparison at hd 256 (lcab_flash and cudnn side by
# side, bf16, 64/8 heads, batch 1, fwd and bwd, 3 warm-up and 7 timed repetitions) on the points of the README's
# H200 hd 256 line: full and causal 16K; causal_document, sliding_window_causal, block_causal_document 32K.
#   carry: build-carry/apps/lcab-measure, build-carry/tests/lcab_kernel_tests (gz; built from 5f3fdcd, clean)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
timeout 240 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "^\[  FAILED|Failure" $O/lcab_kernel_tests.txt | head -10
shape=(--heads 64 --kv-heads 8 --head-dim 256 --pass fwd,bwd --warmup 3 --reps 7 --dtype bf16)
for part in "full,causal 16k" "causal_document,sliding_window_causal,block_causal_document 32k"; do
  set -- $part
  timeout 300 $B/apps/lcab-measure kernel --impl lcab_flash,cudnn --mask "$1" --seqlen "$2" "${shape[@]}" \
    --out $O/lcab-measure-kernel-hd256-2026-11-24.jsonl 2>&1 | grep "^|"
done
echo "done t=$(( $(date +%s) - T0 ))"
