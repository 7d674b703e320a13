#!/bin/bash
# A/B of the Hopper backward: base (main) vs the CTA-item kernel (new, same schedule) vs paired document k tiles.
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
B=build-carry; O=${OUT:-/tmp/out}; mkdir -p $O/r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $O/r/device.txt
for bin in $B/base/lcab-kernel-bench $B/apps/lcab-kernel-bench; do
  cuobjdump --dump-sass $bin | awk '/Function :/ { keep = ($0 ~ /flash_dkdv_sm90_kernel.*bfloat16.*Li128/) } keep' > /tmp/s.txt
  echo "$bin LDL $(grep -c LDL /tmp/s.txt) STL $(grep -c STL /tmp/s.txt) HGMMA $(grep -c HGMMA /tmp/s.txt)" | tee -a $O/r/sass.txt
done
LCAB_BWD_PAIRS=1 timeout 240 $B/tests/lcab_kernel_tests --gtest_brief=1 --gtest_filter=-FlashWork.BackwardCtasStartTheLongKTilesOfEveryKvHeadFirst 2>&1 | tail -12 > $O/r/tests-pairs.txt
bench() { # name bin env masks seqlen
  env $3 timeout 120 $2 --impl lcab_flash --pass bwd --mask "$4" --seqlen $5 --heads 64 --kv-heads 8 --head-dim 128 \
    --dtype bf16 --warmup 3 --iters ${ITERS:-10} --json $O/r/$1.jsonl 2>&1 | sed "s/^/$1 /" | tee -a $O/r/bench.txt
}
for round in 1 2; do
  for v in base new pairs; do
    bin=$B/apps/lcab-kernel-bench; e="X=1"
    [[ $v == base ]] && bin=$B/base/lcab-kernel-bench
    [[ $v == pairs ]] && e="LCAB_BWD_PAIRS=1"
    bench $v $bin "$e" full,causal 16384
    bench $v $bin "$e" causal,causal_document,sliding_window_causal:window=1024,block_causal_document 32768
    bench $v $bin "$e" causal,causal_document 4096,8192
  done
done
LCAB_BWD_PAIRS=1 timeout 100 ncu --clock-control none --kernel-name regex:"flash_dkdv" --launch-count 1 \
  --metrics lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
  $B/apps/lcab-kernel-bench --impl lcab_flash --mask causal --seqlen 16384 --pass bwd --warmup 0 --iters 1 > $O/r/ncu_pairs_causal16k.txt 2>&1
cd $O && tar czf results.tgz r && rm -rf r
