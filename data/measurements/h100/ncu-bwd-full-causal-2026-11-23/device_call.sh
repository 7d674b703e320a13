#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
B=build-carry; O=${OUT:-/tmp/out}; mkdir -p $O/r
for m in ${MASKS:-full causal}; do
  s=16384; [[ $m == causal_document || $m == sliding* ]] && s=32768
  timeout 150 ncu --clock-control none --kernel-name regex:"flash_dkdv" --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section SchedulerStats \
    --metrics lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_red.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_ldsm.sum,sm__cycles_active.avg \
    $B/base/lcab-kernel-bench --impl lcab_flash --mask "$m" --seqlen $s --pass bwd --warmup 0 --iters 1 > $O/r/ncu_$m.txt 2>&1
done
cd $O && tar czf results.tgz r && rm -rf r
