#!/usr/bin/env bash
# Device call 10 (H100): GPU tests with the end-aligned backward walk, then the headline comparison (issues 3, 4).
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee -a $O/device.txt
timeout 300 build-carry/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "FAILED" $O/lcab_kernel_tests.txt | head
BUILD=build-carry timeout $(( 570 - ($(date +%s) - T0) )) scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
echo "headline rc=$? t=$(( $(date +%s) - T0 ))"; cat $O/headline.md; tail -3 $O/headline.err | cut -c1-300
