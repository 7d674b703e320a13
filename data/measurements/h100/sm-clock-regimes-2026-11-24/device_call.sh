#!/usr/bin/env bash
# H100 call: the SM clock markers (measure/sm_clock.h) on a GPU, then lcab_flash's headline points (bf16 hd 128,
# 64/8 heads; full 32K, the three masked patterns at 32K; fwd and bwd) in two regimes, each point in its own
# process of lcab-kernel-bench (which reports the SM clock of every timed run):
#   cold:      after 6 s idle, 3 warm-up and 10 timed runs (as short as a point gets);
#   sustained: the point itself runs for about 4 s first (the board's power limit engaged), then about 1 s timed.
# nvidia-smi logs clocks, power and clock-event reasons every 50 ms meanwhile.
#   carry: build-carry/{apps/lcab-kernel-bench,apps/lcab-measure,tests/lcab_measure_tests} (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/* build-carry/tests/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { kill %1 2>/dev/null; tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader -lms 50 > $O/smi.csv &
timeout 120 $B/tests/lcab_measure_tests > $O/lcab_measure_tests.txt 2>&1
echo "measure tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_measure_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "SmClock|Failure|FAILED" $O/lcab_measure_tests.txt | head -20
# lcab-measure kernel writes the clock into its records too.
$B/apps/lcab-measure kernel --impl lcab_flash --mask sliding_window_causal --seqlen 32k --pass fwd --head-dim 128 \
  --out $O/lcab-measure-swc.jsonl > /dev/null 2>&1; echo "lcab-measure rc=$?"
python3 - $B/apps/lcab-kernel-bench $O <<'PY'
import json, subprocess, sys, time
bench, out = sys.argv[1], sys.argv[2]
points = [(m, p) for p in ("fwd", "bwd") for m in ("full", "causal_document", "sliding_window_causal", "block_causal_document")]
def run(mask, pas, warmup, iters, path):
    cmd = [bench, "--impl", "lcab_flash", "--mask", mask, "--seqlen", "32k", "--head-dim", "128", "--pass", pas,
           "--warmup", str(warmup), "--iters", str(iters), "--json", path]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return json.loads(open(path).read().splitlines()[-1])
rows = []
for mask, pas in points:
    time.sleep(6)
    t = time.strftime("%H:%M:%S")
    cold = run(mask, pas, 3, 10, f"{out}/cold.jsonl")
    ms = cold["time_ms"]["median"]
    warm = max(3, int(4000 / ms)); iters = max(5, int(1000 / ms))
    hot = run(mask, pas, warm, iters, f"{out}/sustained.jsonl")
    for regime, r in (("cold", cold), ("sustained", hot)):
        c = r.get("sm_clock_mhz") or {}
        rows.append((pas, mask, regime, r["time_ms"]["median"], r["tflops"], c.get("median", 0), c.get("p20", 0), c.get("p80", 0), t))
        print(f"{pas} {mask:24s} {regime:9s} {r['time_ms']['median']:9.3f} ms {r['tflops']:6.1f} TFLOP/s  SM {c.get('median', 0):6.0f} MHz [{c.get('p20', 0):.0f}, {c.get('p80', 0):.0f}]  {t}", flush=True)
PY
echo "regimes done t=$(( $(date +%s) - T0 ))"
