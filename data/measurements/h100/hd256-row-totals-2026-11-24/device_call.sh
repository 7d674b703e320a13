#!/usr/bin/env bash
# H100 call: the final build of the forward's row totals under the last P V at hd 256 (this commit's tree). Its SASS
# counts against main's (6ffe615: hd 64 and 128 must not change), the GPU kernel tests, then lcab-measure's kernel
# comparison at hd 256 (lcab_flash and cudnn side by side, bf16, 64/8 heads, batch 1, fwd and bwd, 3 warm-up and 7
# timed repetitions): full and causal at 4K, 16K, 32K; causal_document, sliding_window_causal, block_causal_document
# at 32K (the headline's points, without the PyTorch peers).
#   carry: build-carry/apps/{lcab-measure,lcab-kernel-bench}, build-carry/tests/lcab_kernel_tests (this tree),
#          build-carry/base/lcab-kernel-bench (main), gz
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
for v in base apps; do /usr/local/cuda/bin/cuobjdump -sass $B/$v/lcab-kernel-bench > /tmp/sass-$v.txt; done
python3 scripts/sass_counts.py --match flash_forward_sm90 --baseline /tmp/sass-base.txt < /tmp/sass-apps.txt > $O/sass-counts.txt 2>&1
grep -E "sm_90" $O/sass-counts.txt | grep bfloat | cut -c1-20,150-
timeout 240 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "^\[  FAILED|Failure" $O/lcab_kernel_tests.txt | head -10
shape=(--heads 64 --kv-heads 8 --head-dim 256 --pass fwd,bwd --warmup 3 --reps 7 --dtype bf16)
for part in "full,causal 4k,16k,32k" "causal_document,sliding_window_causal,block_causal_document 32k"; do
  set -- $part
  timeout 300 $B/apps/lcab-measure kernel --impl lcab_flash,cudnn --mask "$1" --seqlen "$2" "${shape[@]}" \
    --out $O/lcab-measure-kernel-hd256-2026-11-24.jsonl | tail -25
done
echo "done t=$(( $(date +%s) - T0 ))"
