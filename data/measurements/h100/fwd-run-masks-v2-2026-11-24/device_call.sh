#!/usr/bin/env bash
# H100 call: the forward's run masks, second version (every partial tile a visit with a run mask of one or two
# slices, no walk over the slices left in the consumer loop) against main. GPU kernel tests of the new build; its SASS
# counts against main's (scripts/sass_counts.py); A/B with lcab-kernel-bench, 3 rounds in alternating order, per
# cycle (scripts/ab_compare.py): bf16, 64/8 heads, hd 128, 64 and 256, fwd; the masked patterns at 32K (with
# share_question and the two block-sparse ones), the window-like file masks of ../partial-tile-cost-2026-11-24/
# (band9: no partial tile; edge9: two partial tiles per row, three slices), full and causal at 16K.
#   carry: build-carry/apps/{base,new} (lcab-kernel-bench: main = c5e184e's kernels, and this tree), tests/lcab_kernel_tests (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/* build-carry/tests/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; M=/tmp/masks; mkdir -p $O $M; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
for v in base new; do /usr/local/cuda/bin/cuobjdump -sass $B/apps/$v > /tmp/sass-$v.txt; done
python3 scripts/sass_counts.py --match flash_forward_sm90 --baseline /tmp/sass-base.txt < /tmp/sass-new.txt > $O/sass-counts.txt 2>&1
grep -E "sm_90" $O/sass-counts.txt | grep bfloat | cut -c1-20,150-
timeout 240 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "^\[  FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
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
masks="file:$M/band9.json,file:$M/edge9.json,sliding_window_causal,causal_document,block_causal_document,share_question,variable_block_sparse,block_sparse:block=64"
for order in "base new" "new base" "base new"; do
  for v in $order; do
    for hd in 128 64 256; do
      timeout 200 $B/apps/$v --impl lcab_flash --mask $masks --seqlen 32k --head-dim $hd --pass fwd --warmup 3 --iters 10 \
        --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd"
      timeout 200 $B/apps/$v --impl lcab_flash --mask full,causal --seqlen 16k --head-dim $hd --pass fwd --warmup 3 \
        --iters 10 --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd full"
    done
  done
done
echo "ab done t=$(( $(date +%s) - T0 ))"
python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-new.jsonl | sed 's|file:/tmp/masks/||' | tee $O/ab-summary.txt
