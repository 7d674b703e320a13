#!/usr/bin/env bash
# H100 call: a variant of the backward's run masks (../device_call.sh's "new") that carries the run's mask in the
# step cursor (loaded with the run, warp-uniform; "bc") instead of loading it where a partial tile needs it. GPU kernel
# tests of bc; A/B per cycle of base (bacb865), new and bc, 2 rounds in rotating order: bf16, 64/8 heads, hd 128 and
# 64, bwd; full and causal at 16K, band9, the window, causal_document and variable_block_sparse at 32K.
#   carry: build-carry/apps/{base,new,bc} (lcab-kernel-bench), tests/lcab_kernel_tests (bc's) (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/* build-carry/tests/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; M=/tmp/masks; mkdir -p $O $M; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
for v in new bc; do /usr/local/cuda/bin/cuobjdump -sass $B/apps/$v > /tmp/sass-$v.txt; done
python3 scripts/sass_counts.py --match flash_backward_sm90 --baseline /tmp/sass-new.txt < /tmp/sass-bc.txt > $O/sass-counts-bc.txt 2>&1
timeout 200 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "^\[  FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
python3 - $M <<'PY'
import json, sys
S, T = 32768, 128
slices = [[T * a, T * (a + 1), T * max(a - 8, 0), T * (a + 1), "full"] for a in range(S // T)]
json.dump({"seqlen": S, "slices": slices}, open(f"{sys.argv[1]}/band9.json", "w"))
PY
masks="file:$M/band9.json,sliding_window_causal,causal_document,variable_block_sparse"
for order in "base new bc" "bc new base"; do
  for v in $order; do
    for hd in 128 64; do
      timeout 200 $B/apps/$v --impl lcab_flash --mask $masks --seqlen 32k --head-dim $hd --pass bwd --warmup 2 --iters 7 \
        --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd"
      timeout 200 $B/apps/$v --impl lcab_flash --mask full,causal --seqlen 16k --head-dim $hd --pass bwd --warmup 2 \
        --iters 7 --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd full"
    done
  done
done
echo "ab done t=$(( $(date +%s) - T0 ))"
for v in new bc; do
  python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-$v.jsonl | sed 's|file:/tmp/masks/||' > $O/ab-summary-$v.txt
  echo "== $v against base"; sed -E 's/rounds \[[^]]*\] \[[^]]*\]  //' $O/ab-summary-$v.txt
done
