#!/usr/bin/env bash
# H100 call: why the deferred epilogue (and the quadrant trial before it) slows the forward on the full mask, where
# items are 128 tiles long and what changed runs once per item. Nsight Compute on main's binary (base) and the
# deferred one (new), full 16K, hd 64 and 128, 64/8 heads, bf16, one launch each (clocks left alone): speed of light,
# warp states, instruction statistics and the source counters (SASS with per-instruction samples); and the forward
# kernels' SASS of both binaries by cuobjdump.
#   carry: build-carry/{apps,base}/lcab-kernel-bench (gzipped)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
for v in base apps; do
  cuobjdump -sass $B/$v/lcab-kernel-bench 2>/dev/null | awk '/Function : /{p=($0 ~ /flash_forward_sm90_kernelI13__nv_bfloat16Li(64|128)E/)} p' \
    | gzip > $O/sass-$v.txt.gz
  for hd in 64 128; do
    timeout 150 ncu --clock-control none --kernel-name regex:"flash_forward_sm90" --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section InstructionStats --section SourceCounters \
      -f -o $O/ncu-$v-hd$hd $B/$v/lcab-kernel-bench --impl lcab_flash --mask full --seqlen 16384 --heads 64 \
      --kv-heads 8 --head-dim $hd --pass fwd --warmup 0 --iters 1 > $O/ncu-$v-hd$hd.log 2>&1
    echo "ncu $v hd$hd rc=$? t=$(( $(date +%s) - T0 ))"
    ncu -i $O/ncu-$v-hd$hd.ncu-rep --page details --csv > $O/ncu-$v-hd$hd-details.csv 2>/dev/null
    ncu -i $O/ncu-$v-hd$hd.ncu-rep --page raw --csv --metrics smsp__inst_executed.sum,smsp__cycles_active.avg,sm__cycles_elapsed.avg,smsp__average_warp_latency_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle > $O/ncu-$v-hd$hd-raw.csv 2>/dev/null
    gzip -f $O/ncu-$v-hd$hd.ncu-rep
  done
done
ls -la $O
