#!/bin/bash
# A/B of the Hopper backward's walk: base vs CTAs after the first N waves ascending (heads-inner k tiles).
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
B=build-carry; O=${OUT:-/tmp/out}; mkdir -p $O/r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $O/r/device.txt
bench() { # name bin env masks seqlen
  env $3 timeout 120 $2 --impl lcab_flash --pass bwd --mask "$4" --seqlen $5 --heads 64 --kv-heads 8 --head-dim 128 \
    --dtype bf16 --warmup 3 --iters ${ITERS:-10} --json $O/r/$1.jsonl 2>&1 | sed "s/^/$1 /" | tee -a $O/r/bench.txt
}
for round in 1 2; do
  for v in ${VARIANTS:-base asc1 asc0}; do
    bin=$B/apps/lcab-kernel-bench; e="X=1"
    [[ $v == base ]] && bin=$B/base/lcab-kernel-bench
    [[ $v == asc* ]] && e="LCAB_BWD_ASC_AFTER=${v#asc}"
    bench $v $bin "$e" full,causal 16384
    bench $v $bin "$e" causal,causal_document,sliding_window_causal:window=1024,block_causal_document 32768
  done
done
for v in asc1; do
  LCAB_BWD_ASC_AFTER=${v#asc} timeout 100 ncu --clock-control none --kernel-name regex:"flash_dkdv" --launch-count 1 \
    --metrics lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    $B/apps/lcab-kernel-bench --impl lcab_flash --mask causal --seqlen 16384 --pass bwd --warmup 0 --iters 1 > $O/r/ncu_$v.txt 2>&1
done
cd $O && tar czf results.tgz r && rm -rf r
