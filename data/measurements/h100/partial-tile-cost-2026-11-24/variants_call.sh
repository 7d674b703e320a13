#!/usr/bin/env bash
# H100 call: the forward's partial-tile cost taken apart with two experiment builds of
# kernels/hopper/flash_forward_sm90.cu (LCAB_FWD_MASK_EXPERIMENT, not committed): E0 main; E1 without the in-tile
# masking (partial tiles attend to every key: wrong outputs, timed only); E2 the masking applied with bits that cost
# two instructions (c.tile's low bits: wrong outputs, timed only) instead of the lookup in the row's slices. File masks
# as device_call.sh writes them; 3 rounds in rotating order; cycles = time x SM clock. Also the SASS of E0.
#   carry: build-carry/apps/{E0,E1,E2} (gz, lcab-kernel-bench builds)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; M=/tmp/masks; mkdir -p $O $M; T0=$(date +%s); B=build-carry/apps
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
/usr/local/cuda/bin/cuobjdump -sass $B/E0 | gzip > $O/sass-E0.txt.gz
python3 - $M <<'PY'
import json, sys
S, T = 32768, 128
rows = S // T
def write(name, row_slices):
    slices = [s for a in range(rows) for s in row_slices(a) if s[3] > s[2]]
    json.dump({"seqlen": S, "slices": slices}, open(f"{sys.argv[1]}/{name}.json", "w"))
def tiles(a, lo, hi):
    lo = max(lo, 0)
    return [[T * a, T * (a + 1), T * lo, T * (hi + 1), "full"]] if hi >= lo else []
write("band9", lambda a: tiles(a, a - 8, a))
write("edge9", lambda a: ([[T * a, T * (a + 1), T * max(a - 8, 0), T * (a - 7) - 1, "full"]] if a >= 8 else []) +
      tiles(a, a - 7, a - 1) + [[T * a, T * (a + 1), T * a, T * (a + 1) - 1, "full"]])
PY
masks="file:$M/band9.json,file:$M/edge9.json,sliding_window_causal,causal_document"
for order in "E0 E1 E2" "E1 E2 E0" "E2 E0 E1"; do
  for v in $order; do
    for hd in 128 64; do
      timeout 200 $B/$v --impl lcab_flash --mask $masks --seqlen 32k --head-dim $hd --pass fwd --warmup 3 --iters 10 \
        --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd"
      timeout 200 $B/$v --impl lcab_flash --mask full --seqlen 16k --head-dim $hd --pass fwd --warmup 3 --iters 10 \
        --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd full"
    done
  done
done
echo "done t=$(( $(date +%s) - T0 ))"
for v in E1 E2; do echo "== $v against E0"; python3 scripts/ab_compare.py $O/ab-E0.jsonl $O/ab-$v.jsonl | sed 's|file:/tmp/masks/||'; done
