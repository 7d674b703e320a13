#!/usr/bin/env bash
# H100 call: where the Hopper forward's warps stall, per SASS instruction (Nsight Compute's PC sampling, the
# SourceCounters section, one launch), main's lcab-kernel-bench (6ffe615), bf16 hd 128, 64/8 heads, 32K:
# sliding_window_causal and full. The source page exported as CSV with the SASS.
#   carry: build-carry/base/lcab-kernel-bench (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for m in sliding_window_causal full; do
  timeout 200 $NCU --clock-control none --kernel-name regex:flash_forward_sm90 --launch-skip 2 --launch-count 1 \
    --section WarpStateStats --section SourceCounters --section SchedulerStats --import-source no \
    --export $O/fwd-$m -f $B/base/lcab-kernel-bench --impl lcab_flash --mask $m --seqlen 32k --head-dim 128 --pass fwd \
    --warmup 2 --iters 1 > $O/ncu-$m.log 2>&1; echo "ncu $m rc=$?"
  $NCU -i $O/fwd-$m.ncu-rep --page details > $O/details-$m.txt 2>&1
  $NCU -i $O/fwd-$m.ncu-rep --page source --csv --print-source sass > $O/source-$m.csv 2>$O/source-$m.err; echo "source rc=$?"
  head -c 600 $O/source-$m.csv; echo; gzip -f $O/source-$m.csv
done
ls -la $O
