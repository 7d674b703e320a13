#!/usr/bin/env bash
# Main's binaries (4a3ba75, kernels as 2957b7c's) on one H200 (nvidia-h200): the three GPU test suites, then Nsight
# Compute on the backward's dK/dV kernel (one launch each, clocks left alone) for the full mask, the window and
# causal_document at 32K, bf16, hd 128, 64 / 8 heads: speed of light, memory, warp states, scheduler and per-SASS
# stall samples (--page source), to see where a window step's extra cycles over a full-mask step go.
#   carry: build-carry/main/{lcab-kernel-bench,lcab-measure,lcab-predict,lcab_kernel_tests,lcab_measure_tests,
#   lcab_cp_tests}.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/main
bash scripts/carry.sh unpack $B
mkdir -p $B/apps && ln -sf ../lcab-measure $B/apps/lcab-measure && ln -sf ../lcab-predict $B/apps/lcab-predict
device_info
ncu --version | tail -1
for suite in lcab_kernel_tests lcab_measure_tests lcab_cp_tests; do
  timeout 200 $B/$suite > $O/$suite.txt 2>&1; test_summary $suite $? $O/$suite.txt
done
for m in full sliding_window_causal causal_document; do
  timeout 120 ncu --clock-control none --kernel-name regex:flash_dkdv --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section SchedulerStats --section SourceCounters \
    --metrics lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__cycles_active.avg,sm__cycles_elapsed.max,smsp__cycles_active.avg,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_sectors_op_red.sum \
    --export $O/ncu_$m --force-overwrite \
    $B/lcab-kernel-bench --impl lcab_flash --mask $m --seqlen 32k --pass bwd --warmup 0 --iters 1 > $O/ncu_$m.log 2>&1
  echo "ncu $m rc=$? t=$(t)"
  ncu --import $O/ncu_$m.ncu-rep --page details > $O/ncu_$m.txt 2>&1
  ncu --import $O/ncu_$m.ncu-rep --page source --csv --print-source sass 2> $O/ncu_source_$m.err | gzip -9n > $O/ncu_source_$m.csv.gz
  echo "source $m: $(zcat $O/ncu_source_$m.csv.gz | wc -l) lines; $(head -c 300 $O/ncu_source_$m.err)"
done
grep -E "Duration|SM Frequency|Elapsed Cycles|L2 Hit|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|gmma|lts__t_bytes|dram__bytes" $O/ncu_*.txt | head -80
