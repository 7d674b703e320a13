#!/usr/bin/env bash
# H100 call: the backward's key-major run masks (BackwardMasking::kRunMasks) against main (bacb865, the forward's run
# masks, the backward walking the slices). GPU kernel tests of the new build; A/B with lcab-kernel-bench, 3 rounds in
# alternating order, per cycle (scripts/ab_compare.py): bf16, 64/8 heads, hd 128, 64 and 256, bwd; the masked patterns
# at 32K (with share_question and the two block-sparse ones), band9 and edge9 (../partial-tile-cost-2026-11-24/),
# full and causal at 16K.
#   carry: build-carry/apps/{base,new} (lcab-kernel-bench), tests/lcab_kernel_tests (gz)
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
python3 scripts/sass_counts.py --match flash_backward_sm90 --baseline /tmp/sass-base.txt < /tmp/sass-new.txt > $O/sass-counts.txt 2>&1
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
      timeout 200 $B/apps/$v --impl lcab_flash --mask $masks --seqlen 32k --head-dim $hd --pass bwd --warmup 2 --iters 7 \
        --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd"
      timeout 200 $B/apps/$v --impl lcab_flash --mask full,causal --seqlen 16k --head-dim $hd --pass bwd --warmup 2 \
        --iters 7 --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd full"
    done
  done
done
echo "ab done t=$(( $(date +%s) - T0 ))"
python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-new.jsonl | sed 's|file:/tmp/masks/||' > $O/ab-summary.txt
sed -E 's/rounds \[[^]]*\] \[[^]]*\]  //' $O/ab-summary.txt
