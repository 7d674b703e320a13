#!/bin/bash
# A/B of the Hopper backward: base (main's binary) vs decoupled warpgroups, and with the stagger.
export NCCL_NVLS_ENABLE=0 LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
B=build-carry
O=${OUT:-/tmp/out}
mkdir -p $O/r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $O/r/device.txt
for bin in $B/base/lcab-kernel-bench $B/apps/lcab-kernel-bench; do
  cuobjdump --dump-sass $bin | awk '/Function :/ { keep = ($0 ~ /flash_dkdv_sm90_kernel.*bfloat16.*Li128/) } keep' > /tmp/s.txt
  echo "$bin LDL $(grep -c LDL /tmp/s.txt) STL $(grep -c STL /tmp/s.txt) HGMMA $(grep -c HGMMA /tmp/s.txt)" | tee -a $O/r/sass.txt
done
if [[ ${TESTS:-1} == 1 ]]; then
  timeout 240 $B/tests/lcab_kernel_tests --gtest_brief=1 2>&1 | tail -40 > $O/r/tests.txt
fi
bench() { # name bin env masks seqlen
  env $3 timeout 120 $2 --impl lcab_flash --pass bwd --mask "$4" --seqlen $5 --heads 64 --kv-heads 8 --head-dim 128 \
    --dtype bf16 --warmup 3 --iters ${ITERS:-10} --json $O/r/$1.jsonl 2>&1 | sed "s/^/$1 /" | tee -a $O/r/bench.txt
}
for round in 1 2; do
  for v in base new stagger; do
    bin=$B/apps/lcab-kernel-bench; e="X=1"
    [[ $v == base ]] && bin=$B/base/lcab-kernel-bench
    [[ $v == stagger ]] && e="LCAB_BWD_STAGGER=1"
    bench $v $bin "$e" full,causal 16384
    bench $v $bin "$e" causal_document,sliding_window_causal:window=1024,block_causal_document 32768
  done
done
cd $O && tar czf results.tgz r && rm -rf r
