#!/usr/bin/env bash
# nvidia-h100-x1 call (no two-GPU kind was lent by then): the GPU tests of main's final binaries of 2026-11-24
# (9baa1d3: the compressed-records readers and the writers' checks in every binary; kernels unchanged):
# lcab_kernel_tests, lcab_measure_tests and lcab_cp_tests (its P = 2 cases skip on one GPU); then lcab-measure asked
# to append to a committed file stored compressed (--out NAME.jsonl where only NAME.jsonl.gz is stored), which it
# must refuse before measuring.
#   carry: build-carry/final/{lcab_kernel_tests,lcab_measure_tests,lcab_cp_tests,lcab-measure}.xz (scripts/carry.sh)
B=build-carry/final
bash scripts/carry.sh unpack $B
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
t() { echo $(( $(date +%s) - T0 )); }
summary() { echo "$1 rc=$2 $(grep -E '^\[  (PASSED|FAILED)' $3 | tr '\n' ' ') skipped=$(grep -c '^\[  SKIPPED \]' $3) t=$(t)"
            grep -E "^\[  FAILED|Failure" $3 | head -10; }
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
for suite in lcab_kernel_tests lcab_measure_tests lcab_cp_tests; do
  timeout 200 $B/$suite > $O/$suite.txt 2>&1; summary $suite $? $O/$suite.txt
done
$B/lcab-measure kernel --impl lcab_flash --mask causal_document --seqlen 32k --heads 64 --kv-heads 8 --head-dim 128 \
  --pass fwd --warmup 2 --reps 5 --out data/measurements/h200/lcab-measure-kernel-fwd-2026-11-24.jsonl > $O/refused.txt 2>&1
echo "writing beside the compressed file: rc=$? $(tail -1 $O/refused.txt)"
