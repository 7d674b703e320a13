#!/usr/bin/env bash
# H100 call: the headline comparison (scripts/headline_benchmark.sh: lcab_flash and cudnn with the PyTorch peers, hd
# 128) with main's kernels since the backward's early lse loads, and the GPU kernel tests of the same binaries; first,
# for the quadrant trial (data/measurements/h100/fwd-quadrants-2026-11-23/), the SASS of three sm_90a objects of
# kernels/hopper/flash_forward_sm90.cu (main, its first version, its variant C) by cuobjdump, which only this machine has.
#   carry: build-carry/{apps/lcab-kernel-bench,apps/lcab-measure,apps/lcab-predict,tests/lcab_kernel_tests} and, for the
#   SASS, sass/fwd_{base,v1,C}.o (gz). (The first call carried no lcab-predict, which the PyTorch peers' script needs
#   to build its masks: its peers failed; the second call ran this script without the objects.)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/* build-carry/tests/*
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O/sass; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
left() { echo $(( ${BUDGET:-585} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
if [[ -d $B/sass ]]; then
  for v in base v1 C; do /usr/local/cuda/bin/cuobjdump -sass $B/sass/fwd_$v.o | gzip > $O/sass/fwd_$v.sass.gz; done
  ls -la $O/sass
fi
timeout 60 $B/apps/lcab-kernel-bench --impl lcab_flash --pass fwd,bwd --mask causal_document,sliding_window_causal \
  --seqlen 8k --head-dim 128 --warmup 1 --iters 3 > $O/smoke.txt 2>&1
rc=$?; echo "smoke rc=$rc t=$(( $(date +%s) - T0 ))"; cat $O/smoke.txt
[[ $rc == 0 ]] || exit 1
timeout 200 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
BUILD=$B timeout $(left) scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
echo "headline rc=$? t=$(( $(date +%s) - T0 ))"; cat $O/headline.md; tail -3 $O/headline.err
