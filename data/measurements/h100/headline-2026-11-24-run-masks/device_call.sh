#!/usr/bin/env bash
# H100 call: the headline comparison (scripts/headline_benchmark.sh: lcab_flash and cudnn with the PyTorch peers, hd
# 128, with the SM clock in lcab-measure's records) with main's kernels since the forward's run masks, the GPU kernel
# tests of the same binaries, and the forward kernels' SASS counts against the two builds measured in
# ../fwd-run-masks-v2-2026-11-24/variants/ (hd 128 should match vc, hd 64 and 256 v2).
#   carry: build-carry/{apps/lcab-kernel-bench,apps/lcab-measure,apps/lcab-predict,tests/lcab_kernel_tests,ref/v2,ref/vc} (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/* build-carry/tests/* build-carry/ref/*
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
left() { echo $(( ${BUDGET:-580} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
/usr/local/cuda/bin/cuobjdump -sass $B/apps/lcab-kernel-bench > /tmp/sass-main.txt
for v in v2 vc; do
  /usr/local/cuda/bin/cuobjdump -sass $B/ref/$v > /tmp/sass-$v.txt
  python3 scripts/sass_counts.py --match flash_forward_sm90 --baseline /tmp/sass-$v.txt < /tmp/sass-main.txt > $O/sass-counts-against-$v.txt 2>&1
  echo "== against $v"; grep -E "sm_90" $O/sass-counts-against-$v.txt | grep bfloat | cut -c1-20,150-
done
timeout 60 $B/apps/lcab-kernel-bench --impl lcab_flash --pass fwd,bwd --mask causal_document,sliding_window_causal \
  --seqlen 8k --head-dim 128 --warmup 1 --iters 3 > $O/smoke.txt 2>&1
rc=$?; echo "smoke rc=$rc t=$(( $(date +%s) - T0 ))"; cat $O/smoke.txt
[[ $rc == 0 ]] || exit 1
timeout 200 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
BUILD=$B timeout $(left) scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
echo "headline rc=$? t=$(( $(date +%s) - T0 ))"; cat $O/headline.md; tail -3 $O/headline.err
