#!/usr/bin/env bash
# H100 diagnostic: why the sliding_window_causal 32K hd 128 forward moves between processes (1.88-2.14 ms for one
# binary in earlier runs, p20-p80 within 0.3% inside a process). Main's binary (c5e184e). nvidia-smi logs the SM
# clock, power, temperature and clock-event reasons every 20 ms while the window runs cool (after a pause) and hot
# (right after a full-mask load), then one long run; Nsight Compute (clock control off) reads the kernel's SM clock,
# L2 and tensor-pipe throughput for the window and the full mask.
#   carry: build-carry/apps/lcab-kernel-bench (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry/apps/lcab-kernel-bench
finish() { kill %1 2>/dev/null; tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,enforced.power.limit --format=csv | tee $O/device.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader -lms 20 > $O/smi.csv &
SWC="--mask sliding_window_causal:window=1024 --seqlen 32k --head-dim 128 --pass fwd --impl lcab_flash"
FULL="--mask full --seqlen 32k --head-dim 128 --pass fwd --impl lcab_flash"
mark() { echo "$(date +%H:%M:%S.%N) $*" >> $O/marks.txt; }
for i in 1 2 3 4; do
  sleep 4; mark "swc cold $i"; $B $SWC --json $O/swc-cold.jsonl | tail -1
  mark "full heat $i"; $B $FULL --iters 40 --json $O/full-heat.jsonl | tail -1
  mark "swc hot $i"; $B $SWC --json $O/swc-hot.jsonl | tail -1
done
mark "swc long"; $B $SWC --warmup 20 --iters 400 --json $O/swc-long.jsonl | tail -1
mark "end"; echo "timing done t=$(( $(date +%s) - T0 ))"
NCU="/usr/local/cuda/bin/ncu --clock-control none -k regex:flash_forward_sm90 --launch-skip 3 -c 1"
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__t_bytes.sum.per_second,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
for m in "$SWC" "--mask full --seqlen 16k --head-dim 128 --pass fwd --impl lcab_flash" "$SWC --head-dim 64"; do
  timeout 120 $NCU --metrics $M --csv $B $m --warmup 3 --iters 1 >> $O/ncu.csv 2>> $O/ncu.err
done
echo "ncu done t=$(( $(date +%s) - T0 ))"
python3 - "$O" <<'PY'
import json, sys, glob
o = sys.argv[1]
for f in sorted(glob.glob(o + "/*.jsonl")):
    for l in open(f):
        r = json.loads(l); t = r["time_ms"]
        print(f.split("/")[-1], r["key"]["mask"][:24], round(r["tflops"], 1), round(t["p20"], 3), round(t["median"], 3), round(t["p80"], 3))
PY
grep -E "time_duration|per_second|pct" $O/ncu.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' | head -40
