#!/usr/bin/env bash
# H100 call: what a work item costs lcab_flash beyond its tiles, in SM cycles (time x the SM clock the markers
# measured, so the board's power state drops out). Masks are bands of N whole 128 x 128 tiles per q-tile row
# (file masks: row a sees keys [128 (a - N + 1), 128 (a + 1)), no partial tile), N = 1 .. 64, at 32K; then
# sliding_window_causal (9 tiles, 2 of them partial) against the 9-tile band, and the full mask. bf16, 64/8 heads,
# hd 128 and 64, fwd and bwd; each point in its own lcab-kernel-bench process.
#   carry: build-carry/apps/lcab-kernel-bench (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O/masks; T0=$(date +%s); B=build-carry/apps/lcab-kernel-bench
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
python3 - $O/masks <<'PY'
import json, sys
S = 32768
for n in (1, 2, 4, 9, 16, 32, 64):
    slices = [[128 * a, 128 * a + 128, max(0, 128 * (a - n + 1)), 128 * (a + 1), "full"] for a in range(S // 128)]
    json.dump({"seqlen": S, "slices": slices}, open(f"{sys.argv[1]}/band{n}.json", "w"))
PY
for hd in 128 64; do
  for pass in fwd bwd; do
    for m in $O/masks/band{1,2,4,9,16,32,64}.json sliding_window_causal full; do
      spec=$m; [[ $m == *.json ]] && spec=file:$m
      timeout 120 $B --impl lcab_flash --mask $spec --seqlen 32k --head-dim $hd --pass $pass --warmup 3 --iters 10 \
        --json $O/points.jsonl | tail -1
    done
  done
done
echo "done t=$(( $(date +%s) - T0 ))"
python3 - $O/points.jsonl <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in rows:
    k = r["key"]; c = r["sm_clock_mhz"]["median"]; t = r["time_ms"]["median"]
    sm_cycles = t * 1e-3 * c * 1e6 * 132
    items = 256 * (64 if k["pass"] == "fwd" else 8)
    print(f"{k['pass']} hd{k['head_dim']} {k['mask'].split('/')[-1]:24s} {t:8.3f} ms {c:5.0f} MHz {r['tflops']:6.1f} TFLOP/s "
          f"{r['tflops'] / c * 1e3:6.1f}/GHz  {sm_cycles / 1e6:9.2f} M SM-cycles")
PY
