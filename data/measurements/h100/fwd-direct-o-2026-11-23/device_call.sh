#!/usr/bin/env bash
# H100 call: the forward's epilogue writing O straight from registers to global memory (st.global, no staging, no
# barriers, no TMA store; hd 64 and 128) against the committed kernel (TMA store from a staging buffer).
# GPU kernel tests of the new binary; A/B, three rounds in alternating order, hd 64 and 128, 64/8 heads, bf16.
#   carry: build-carry/{base,new}/{lcab-kernel-bench,lcab_kernel_tests} (gzipped; base = main's)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
timeout 60 $B/new/lcab-kernel-bench --impl lcab_flash --pass fwd --mask causal_document,sliding_window_causal \
  --seqlen 8k --head-dim 64,128,256 --warmup 1 --iters 3 > $O/smoke.txt 2>&1
rc=$?; echo "smoke rc=$rc"; cat $O/smoke.txt; [[ $rc == 0 ]] || exit 1
timeout 300 $B/new/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
for v in base new new base base new; do
  for m in "full,causal 16384" "causal_document,sliding_window_causal:window=1024,block_causal_document 32768" \
           "causal_document 8192"; do
    set -- $m
    timeout 120 $B/$v/lcab-kernel-bench --impl lcab_flash --pass fwd --mask "$1" --seqlen $2 --heads 64 --kv-heads 8 \
      --head-dim 64,128 --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$v.jsonl 2>&1 | sed "s/^/$v /" >> $O/ab.txt
  done
done
echo "ab t=$(( $(date +%s) - T0 ))"
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
