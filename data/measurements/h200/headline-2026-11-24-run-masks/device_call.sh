#!/usr/bin/env bash
# H200 call: the headline comparison (scripts/headline_benchmark.sh, hd 128, SM clocks in lcab-measure's records) with
# main's kernels since the run masks (forward; the backward's run-mask kernel for block-sparse masks), and the GPU
# kernel tests of the same binaries (lcab_flash's backward both ways on every case).
#   carry: build-carry/{apps/lcab-kernel-bench,apps/lcab-measure,apps/lcab-predict,tests/lcab_kernel_tests} (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/* build-carry/tests/*
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
left() { echo $(( ${BUDGET:-580} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
timeout 200 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
BUILD=$B timeout $(left) scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
echo "headline rc=$? t=$(( $(date +%s) - T0 ))"; cat $O/headline.md; tail -3 $O/headline.err
