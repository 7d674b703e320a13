#!/usr/bin/env bash
# H100 call: two variants of the adopted run-mask forward (46bfbba, "v2") for hd 128, where it lost its uniform
# datapath in part: va copies the run mask into the tile cursor without warp_uniform (four shuffles fewer per run);
# vc keeps no run mask in the cursor and loads it from the work list where a partial tile uses it. SASS counts
# against v2, then A/B per cycle, 3 rounds in rotating order: bf16, 64/8 heads, hd 128 and 64, fwd.
#   carry: build-carry/apps/{v2,va,vc} (gz, lcab-kernel-bench builds)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; M=/tmp/masks; mkdir -p $O $M; T0=$(date +%s); B=build-carry/apps
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
for v in v2 va vc; do /usr/local/cuda/bin/cuobjdump -sass $B/$v > /tmp/sass-$v.txt; done
for v in va vc; do
  python3 scripts/sass_counts.py --match flash_forward_sm90 --baseline /tmp/sass-v2.txt < /tmp/sass-$v.txt > $O/sass-counts-$v.txt 2>&1
  echo "== $v"; grep -E "sm_90" $O/sass-counts-$v.txt | grep bfloat | cut -c1-20,150-
done
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
masks="file:$M/band9.json,file:$M/edge9.json,sliding_window_causal,causal_document,share_question"
for order in "v2 va vc" "va vc v2" "vc v2 va"; do
  for v in $order; do
    for hd in 128 64; do
      timeout 200 $B/$v --impl lcab_flash --mask $masks --seqlen 32k --head-dim $hd --pass fwd --warmup 3 --iters 10 \
        --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd"
      timeout 200 $B/$v --impl lcab_flash --mask full,causal --seqlen 16k --head-dim $hd --pass fwd --warmup 3 \
        --iters 10 --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd full"
    done
  done
done
echo "ab done t=$(( $(date +%s) - T0 ))"
for v in va vc; do echo "== $v against v2"; python3 scripts/ab_compare.py $O/ab-v2.jsonl $O/ab-$v.jsonl | sed 's|file:/tmp/masks/||' | tee $O/ab-summary-$v.txt | sed 's/rounds.*|/|'; done
