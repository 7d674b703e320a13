#!/usr/bin/env bash
# H100 call, a diagnostic: what the forward's in-tile masking costs. `base` is main's binary; `nomask` the same tree
# with the forward's mask_accumulator compiled out (an experiment switch, not committed; partial tiles then attend to
# keys outside the mask, so its outputs are wrong and it is measured only). A/B, three rounds in alternating order,
# hd 64 and 128, 64/8 heads, bf16; and the SASS instruction mix of main's hd 128 bf16 forward (cuobjdump).
#   carry: build-carry/{base,nomask}/lcab-kernel-bench (gzipped)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/*/*
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
for v in base nomask nomask base base nomask; do
  for m in "full,causal 16384" "causal_document,sliding_window_causal:window=1024,block_causal_document 32768" \
           "causal_document 8192"; do
    set -- $m
    timeout 120 $B/$v/lcab-kernel-bench --impl lcab_flash --pass fwd --mask "$1" --seqlen $2 --heads 64 --kv-heads 8 \
      --head-dim 64,128 --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$v.jsonl 2>&1 | sed "s/^/$v /" >> $O/ab.txt
  done
done
echo "ab t=$(( $(date +%s) - T0 ))"
python3 - $O/ab-base.jsonl $O/ab-nomask.jsonl <<'PY' | tee $O/ab-summary.txt
import json, sys, statistics
vals = {}
for path in sys.argv[1:]:
    side = "base" if path.endswith("ab-base.jsonl") else "nomask"
    for line in open(path):
        r = json.loads(line); k = r["key"]
        if r.get("status") != "ok": continue
        vals.setdefault((k["pass"], k["head_dim"], k["mask"], k["seqlen"]), {}).setdefault(side, []).append(r["tflops"])
for key in sorted(vals):
    b, n = vals[key].get("base", []), vals[key].get("nomask", [])
    if b and n:
        mb, mn = statistics.mean(b), statistics.mean(n)
        print(f"{key[0]} hd{key[1]} {key[2]:24s} {key[3]:6d}  base {mb:6.1f}  nomask {mn:6.1f}  {100*(mn/mb-1):+5.1f}%  "
              f"rounds {[round(x) for x in b]} {[round(x) for x in n]}")
PY
CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
if [[ -n "$CUOBJDUMP" ]]; then
  $CUOBJDUMP -sass $B/base/lcab-kernel-bench 2>&1 | awk '/Function :/ { keep = ($0 ~ /flash_forward_sm90_kernelI13__nv_bfloat16Li128EE/) } keep' \
    > $O/sass-fwd-hd128.txt
  grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.@!P ]+' $O/sass-fwd-hd128.txt | awk '{for(i=2;i<=NF;i++) if ($i !~ /^@/) {split($i,a,"."); print a[1]; break}}' \
    | sort | uniq -c | sort -rn | head -40 > $O/sass-fwd-hd128-mix.txt
  echo "sass lines $(wc -l < $O/sass-fwd-hd128.txt)"; head -25 $O/sass-fwd-hd128-mix.txt
fi
