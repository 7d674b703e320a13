#!/usr/bin/env bash
# H100 call: why the scheduler warp's forward ran slower than main's on the full mask (first call, ab-summary.txt).
# Variants of the forward, all built from the working tree with experiment switches (not committed):
#   base: main; n0: the first call's new kernel (3 slots, items taken ahead, slices in the slot);
#   n1: items taken only once a slot is free; n2: n1 with 2 slots; n3: n1 with lane 0 polling with __nanosleep;
#   n4: n0 with the partial tiles' slices read from global memory; n5: main with 1 KiB more shared memory.
# Two rounds in alternating order, hd 64 and 128, 64/8 heads, bf16.
#   carry: build-carry/variants/{base,n0,...,n5} (gzipped)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); V=build-carry/variants
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
chmod +x $V/*
order1="base n0 n1 n2 n3 n4 n5"; order2="n5 n4 n3 n2 n1 n0 base"
for v in $order1 $order2; do
  for m in "full 16384" "causal_document,sliding_window_causal:window=1024 32768" "causal_document 8192"; do
    set -- $m
    timeout 60 $V/$v --impl lcab_flash --pass fwd --mask "$1" --seqlen $2 --heads 64 --kv-heads 8 --head-dim 64,128 \
      --dtype bf16 --warmup 3 --iters 10 --json $O/v-$v.jsonl 2>&1 | sed "s/^/$v /" >> $O/variants.txt
  done
done
echo "t=$(( $(date +%s) - T0 ))"
python3 - $O <<'PY' | tee $O/variants-summary.txt
import json, sys, glob, os, statistics
vals = {}
for path in sorted(glob.glob(sys.argv[1] + "/v-*.jsonl")):
    v = os.path.basename(path)[2:-6]
    for line in open(path):
        r = json.loads(line); k = r["key"]
        if r.get("status") == "ok":
            vals.setdefault((k["head_dim"], k["mask"], k["seqlen"]), {}).setdefault(v, []).append(r["tflops"])
names = ["base", "n0", "n1", "n2", "n3", "n4", "n5"]
print("hd  mask                      seqlen  " + "  ".join(f"{n:>13s}" for n in names))
for key in sorted(vals):
    row = vals[key]
    print(f"{key[0]:3d} {key[1][:25]:25s} {key[2]:6d}  " +
          "  ".join(f"{statistics.mean(row[n]):5.0f} {'/'.join(str(round(x)) for x in row[n]):>7s}" if n in row else " " * 13 for n in names))
PY
