#!/usr/bin/env bash
# H100 call: GPU kernel tests with the forward's items decoded by the producer (consumers read them from shared
# memory), partial tiles' mask bits by interval arithmetic and looked up while S is on the tensor cores (forward and
# backward); then an A/B of main's binary (base) against this one, fwd and bwd, two rounds in both orders.
#   carry: build-carry/{apps/lcab-kernel-bench,apps/lcab-measure,tests/lcab_kernel_tests,base/lcab-kernel-bench}
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
if [[ ${TESTS:-1} == 1 ]]; then
  timeout 200 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
  echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
  grep FAILED $O/lcab_kernel_tests.txt | head
fi
bench() { # name bin pass masks seqlens
  timeout 120 $2 --impl lcab_flash --pass $3 --mask "$4" --seqlen $5 --heads 64 --kv-heads 8 --head-dim 128 \
    --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$1.jsonl 2>&1 | sed "s/^/$1 /" >> $O/ab.txt
}
if [[ ${AB:-1} == 1 ]]; then
  for order in "base new" "new base"; do
    for v in $order; do
      bin=$B/apps/lcab-kernel-bench; [[ $v == base ]] && bin=$B/base/lcab-kernel-bench
      for pass in ${PASSES:-fwd bwd}; do
        bench $v $bin $pass full,causal 16384
        bench $v $bin $pass causal 4096
        bench $v $bin $pass causal_document,sliding_window_causal:window=1024,block_causal_document 32768
        bench $v $bin $pass share_question,variable_block_sparse 16384
      done
      echo "ab $v t=$(( $(date +%s) - T0 ))"
    done
  done
fi
if [[ "${HEADLINE:-0}" == 1 ]]; then
  BUILD=$B timeout $(( 590 - ($(date +%s) - T0) )) scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
  echo "headline rc=$? t=$(( $(date +%s) - T0 ))"; cat $O/headline.md
fi
python3 - $O/ab-base.jsonl $O/ab-new.jsonl <<'PY'
import json, sys, statistics
vals = {}
for path in sys.argv[1:]:
    side = "base" if path.endswith("ab-base.jsonl") else "new"
    try:
        for line in open(path):
            r = json.loads(line); k = r["key"]
            if r.get("status") != "ok": continue
            vals.setdefault((k["pass"], k["mask"], k["seqlen"]), {}).setdefault(side, []).append(r["tflops"])
    except FileNotFoundError:
        pass
for key in sorted(vals):
    b, n = vals[key].get("base", []), vals[key].get("new", [])
    if b and n:
        mb, mn = statistics.mean(b), statistics.mean(n)
        print(f"{key[0]} {key[1]:40s} {key[2]:6d}  base {mb:6.1f}  new {mn:6.1f}  {100*(mn/mb-1):+5.1f}%  rounds {[round(x) for x in b]} {[round(x) for x in n]}")
PY
