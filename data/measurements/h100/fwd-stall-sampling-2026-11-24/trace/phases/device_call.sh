#!/usr/bin/env bash
# H100 call: where a forward q-tile row's cycles go beyond its tiles. A trace build of flash_forward_sm90.cu
# (LCAB_FORWARD_TRACE: clock64 at each item's phases in the consumers' thread 0 and the loader, first 64 items of
# CTAs 0-7, dumped at exit) against main's binary on the same points (the trace's own cost).
#   carry: build-carry/apps/lcab-kernel-bench (main), build-carry/trace/lcab-kernel-bench (trace build), gz
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; M=/tmp/masks; mkdir -p $O $M; T0=$(date +%s)
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
python3 - $M <<'PY'
import json, sys
S = 32768
for n in (1, 9):
    slices = [[128 * a, 128 * a + 128, max(0, 128 * (a - n + 1)), 128 * (a + 1), "full"] for a in range(S // 128)]
    json.dump({"seqlen": S, "slices": slices}, open(f"{sys.argv[1]}/band{n}.json", "w"))
PY
for round in 1 2; do
  for m in file:$M/band1.json file:$M/band9.json sliding_window_causal causal_document full; do
    name=$(echo $m | sed 's|file:/tmp/masks/||; s|\.json||')
    for v in apps trace; do
      LCAB_FORWARD_TRACE_FILE=$O/trace-$name.txt timeout 200 build-carry/$v/lcab-kernel-bench --impl lcab_flash --mask $m \
        --seqlen 32k --head-dim 128 --pass fwd --warmup 3 --iters 10 --json $O/points-$v.jsonl > /dev/null || echo "FAILED $v $m"
    done
  done
done
echo "done t=$(( $(date +%s) - T0 ))"
python3 scripts/ab_compare.py $O/points-apps.jsonl $O/points-trace.jsonl | sed 's|file:/tmp/masks/||'
