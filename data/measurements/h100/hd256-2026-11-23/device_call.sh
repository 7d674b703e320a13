#!/usr/bin/env bash
# H100 call: lcab_flash head dim 256 on the Hopper path. GPU kernel tests (hd 256 cases included); an A/B of the
# forward at hd 128 (its O staging now stored by 32-bit shared addresses: main's binary = base, two rounds in both
# orders); the headline comparison at hd 256 (scripts/headline_benchmark.sh with HEAD_DIM=256); the SASS summary of
# the Hopper kernels (HGMMA count, local-memory spills).
#   carry: build-carry/{apps/lcab-kernel-bench,apps/lcab-measure,apps/lcab-predict,tests/lcab_kernel_tests,
#          base/lcab-kernel-bench} (gzipped; unpacked first)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
left() { echo $(( ${BUDGET:-585} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
if [[ ${TESTS:-1} == 1 ]]; then
  timeout 300 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
  echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
  grep -E "FAILED|Failure|error" $O/lcab_kernel_tests.txt | head -20
fi
if [[ ${SASS:-1} == 1 ]]; then
  cuobjdump -sass -arch sm_90a $B/apps/lcab-kernel-bench 2>/dev/null | awk '
    /Function :/ { name = $3 }
    /HGMMA/ { hgmma[name]++ } /STL|LDL/ { spill[name]++ }
    END { for (n in hgmma) if (n ~ /sm90/) printf "%s HGMMA %d STL/LDL %d\n", n, hgmma[n], spill[n] + 0 }' \
    | sort > $O/sass.txt
  cat $O/sass.txt | sed 's/_ZN4lcab7kernels5flash[0-9A-Za-z_]*_cu_[0-9a-f]*//' | cut -c1-160
fi
bench() { # name bin pass masks seqlens head_dim
  timeout 120 $2 --impl lcab_flash --pass $3 --mask "$4" --seqlen $5 --heads 64 --kv-heads 8 --head-dim $6 \
    --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$1.jsonl 2>&1 | sed "s/^/$1 /" >> $O/ab.txt
}
if [[ ${AB:-1} == 1 ]]; then
  for order in "base new" "new base"; do
    for v in $order; do
      bin=$B/apps/lcab-kernel-bench; [[ $v == base ]] && bin=$B/base/lcab-kernel-bench
      bench $v $bin fwd full,causal 16384 128
      bench $v $bin fwd causal_document,sliding_window_causal:window=1024,block_causal_document 32768 128
      bench $v $bin fwd full,causal 16384 64
      echo "ab $v t=$(( $(date +%s) - T0 ))"
    done
  done
  python3 - $O/ab-base.jsonl $O/ab-new.jsonl <<'PY' | tee $O/ab-summary.txt
import json, sys, statistics
vals = {}
for path in sys.argv[1:]:
    side = "base" if path.endswith("ab-base.jsonl") else "new"
    for line in open(path):
        r = json.loads(line); k = r["key"]
        if r.get("status") != "ok": continue
        vals.setdefault((k["pass"], k["head_dim"], k["mask"], k["seqlen"]), {}).setdefault(side, []).append(r["tflops"])
for key in sorted(vals):
    b, n = vals[key].get("base", []), vals[key].get("new", [])
    if b and n:
        mb, mn = statistics.mean(b), statistics.mean(n)
        print(f"{key[0]} hd{key[1]} {key[2]:24s} {key[3]:6d}  base {mb:6.1f}  new {mn:6.1f}  {100*(mn/mb-1):+5.1f}%  "
              f"rounds {[round(x) for x in b]} {[round(x) for x in n]}")
PY
fi
if [[ ${HD256:-1} == 1 ]]; then
  HEAD_DIM=256 BUILD=$B timeout $(left) scripts/headline_benchmark.sh $O/hd256 > $O/hd256.md 2> $O/hd256.err
  echo "hd256 headline rc=$? t=$(( $(date +%s) - T0 ))"; cat $O/hd256.md; tail -5 $O/hd256.err
fi
