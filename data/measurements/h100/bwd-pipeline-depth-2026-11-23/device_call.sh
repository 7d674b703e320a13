#!/usr/bin/env bash
# H100 call: backward pipeline-depth variants of the dK/dV kernel (A/B against main's binary, base) and Nsight
# Compute warp-stall sampling of main's backward on full 16K, sliding_window_causal 32K and causal_document 32K.
#   variants: s3 (three Q/dO stages), dq2 (two dQ staging buffers per warpgroup), lse (lse/delta loaded before the
#   stage-free wait), s3lse (both s3 and lse).   carry: build-carry/<variant>/lcab-kernel-bench.gz
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
V="${VARIANTS:-s3 dq2 lse s3lse}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
for v in base $V; do
  timeout 60 $B/$v/lcab-kernel-bench --impl lcab_flash --pass bwd --mask causal_document,sliding_window_causal \
    --seqlen 8k --head-dim 64,128 --warmup 1 --iters 3 > $O/smoke-$v.txt 2>&1
  rc=$?; echo "smoke $v rc=$rc"; [[ $rc == 0 ]] || { cat $O/smoke-$v.txt; exit 1; }
done
for round in 1 2; do
  order="base $V"; [[ $round == 2 ]] && order="$(echo $V | tr ' ' '\n' | tac | tr '\n' ' ') base"
  for v in $order; do
    for m in "full,causal 16384" "causal_document,sliding_window_causal:window=1024,block_causal_document 32768" \
             "causal_document 8192"; do
      set -- $m
      timeout 120 $B/$v/lcab-kernel-bench --impl lcab_flash --pass bwd --mask "$1" --seqlen $2 --heads 64 --kv-heads 8 \
        --head-dim 64,128 --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$v.jsonl 2>&1 | sed "s/^/$v /" >> $O/ab.txt
    done
  done
  echo "round $round t=$(( $(date +%s) - T0 ))"
done
for v in $V; do echo "== $v"; python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-$v.jsonl; done > $O/ab-summary.txt 2>&1
cat $O/ab-summary.txt
if [[ -n "${NCU:-1}" ]] && command -v ncu > /dev/null; then
  for m in "full 16384" "sliding_window_causal 32768" "causal_document 32768"; do
    set -- $m
    timeout 150 ncu --clock-control none --kernel-name regex:"flash_dkdv" --launch-count 1 \
      --section WarpStateStats --section SourceCounters --section SpeedOfLight -f -o $O/ncu-$1 \
      $B/base/lcab-kernel-bench --impl lcab_flash --mask "$1" --seqlen $2 --pass bwd --warmup 0 --iters 1 > $O/ncu-$1.log 2>&1
    echo "ncu $1 rc=$? t=$(( $(date +%s) - T0 ))"
    ncu -i $O/ncu-$1.ncu-rep --page details > $O/ncu-$1-details.txt 2>&1
    ncu -i $O/ncu-$1.ncu-rep --page source --csv --print-source sass > $O/ncu-$1-sass.csv 2>&1
    echo "  sass csv lines: $(wc -l < $O/ncu-$1-sass.csv)"
  done
fi
echo "done t=$(( $(date +%s) - T0 ))"
