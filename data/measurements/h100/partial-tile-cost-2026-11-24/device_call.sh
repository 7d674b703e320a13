#!/usr/bin/env bash
# H100 call: where the window's 1061 extra cycles per partial tile go (../item-overhead-2026-11-24/). Three file
# masks of 9 whole 128 x 128 tiles per q-tile row at 32K: band9 (one run of tiles per row), holes9 (three runs: tiles
# a-10, a-8..a-2 and a, no partial tile), edge9 (three runs like the window's: tile a-8 and tile a partial, but each
# hides only its last key from every row, a-7..a-1 whole), against sliding_window_causal (three runs, two partial
# tiles). Cycles = time x the measured SM clock. bf16, 64/8 heads, hd 128 and 64, fwd and bwd, 3 rounds.
#   carry: build-carry/apps/lcab-kernel-bench (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; M=/tmp/masks; mkdir -p $O $M; T0=$(date +%s); B=build-carry/apps/lcab-kernel-bench
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
python3 - $M <<'PY'
import json, sys
S, T = 32768, 128
rows = S // T
def write(name, row_slices):
    slices = [s for a in range(rows) for s in row_slices(a) if s[3] > s[2]]
    json.dump({"seqlen": S, "slices": slices}, open(f"{sys.argv[1]}/{name}.json", "w"))
def tiles(a, lo, hi):  # whole tiles [lo, hi] of row a, clipped at 0
    lo = max(lo, 0)
    return [[T * a, T * (a + 1), T * lo, T * (hi + 1), "full"]] if hi >= lo else []
write("band9", lambda a: tiles(a, a - 8, a))
write("holes9", lambda a: tiles(a, a - 10, a - 10) + tiles(a, a - 8, a - 2) + tiles(a, a, a))
# edge9: tiles a-8 and a lose their last key column (key 128 (a-7) - 1 and 128 (a+1) - 1): partial, nearly whole.
write("edge9", lambda a: ([[T * a, T * (a + 1), T * max(a - 8, 0), T * (a - 7) - 1, "full"]] if a >= 8 else []) +
      tiles(a, a - 7, a - 1) + [[T * a, T * (a + 1), T * a, T * (a + 1) - 1, "full"]])
PY
for round in 1 2 3; do
  for hd in 128 64; do
    for pass in fwd bwd; do
      for m in band9 holes9 edge9 sliding_window_causal; do
        spec=$m; [[ -f $M/$m.json ]] && spec=file:$M/$m.json
        timeout 120 $B --impl lcab_flash --mask $spec --seqlen 32k --head-dim $hd --pass $pass --warmup 3 --iters 10 \
          --json $O/points.jsonl > /dev/null || echo "FAILED $m $hd $pass"
      done
    done
  done
done
echo "done t=$(( $(date +%s) - T0 ))"
python3 - $O/points.jsonl <<'PY'
import json, sys, statistics
groups = {}
for l in open(sys.argv[1]):
    r = json.loads(l); k = r["key"]
    cyc = r["time_ms"]["median"] * 1e-3 * r["sm_clock_mhz"]["median"] * 1e6
    groups.setdefault((k["pass"], k["head_dim"]), {}).setdefault(k["mask"].split("/")[-1].replace(".json", ""), []).append(cyc)
for (p, hd), g in groups.items():
    base = statistics.mean(g["band9"])
    print(f"{p} hd{hd}: " + "  ".join(f"{m} {statistics.mean(v)/1e3:7.0f}k ({(statistics.mean(v)/base-1)*100:+5.1f}%, rounds {[round(x/1e3) for x in v]})" for m, v in g.items()))
PY
