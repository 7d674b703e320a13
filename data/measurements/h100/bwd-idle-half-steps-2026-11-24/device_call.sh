#!/usr/bin/env bash
# H100 call: what a backward step with an idle key half costs against a whole one. main's lcab-kernel-bench (0c34885,
# the kernels of cf9111c), bf16, 64 / 8 heads, hd 128 and 64, 32K, three masks of 512 q tiles of 64 rows each seeing
# one block of keys, so that every backward step (64 queries x 128 keys) is one of a kind:
#   steps128: block [128 (a / 2), +128) for q tile a: every step whole (no masking);
#   steps64:  block [64 a, +64): every step has one idle key half (the other half a whole 64 x 64 block);
#   steps64x2: block [64 a, +64) and the next q tile's block too ([64 a, +128) clipped to the k tile): whole steps
#             by area but built from two slices (the same masking path as steps64, no idle half).
#   carry: build-carry/main/lcab-kernel-bench.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/main
bash scripts/carry.sh unpack $B
device_info
M=/tmp/masks; mkdir -p $M
python3 - "$M" <<'PY'
import json, sys
S = 32768
def dump(name, slices):
    json.dump({"seqlen": S, "slices": slices}, open(f"{sys.argv[1]}/{name}.json", "w"))
dump("steps128", [[64 * a, 64 * a + 64, 128 * (a // 2), 128 * (a // 2) + 128, "full"] for a in range(S // 64)])
dump("steps64", [[64 * a, 64 * a + 64, 64 * a, 64 * a + 64, "full"] for a in range(S // 64)])
two = []
for a in range(S // 64):
    k0 = 128 * (a // 2)
    two += [[64 * a, 64 * a + 64, k0, k0 + 64, "full"], [64 * a, 64 * a + 64, k0 + 64, k0 + 128, "full"]]
dump("steps64x2", two)
PY
for hd in 128 64; do
  timeout 120 $B/lcab-kernel-bench --impl lcab_flash --mask file:$M/steps128.json,file:$M/steps64.json,file:$M/steps64x2.json \
    --seqlen 32k --head-dim $hd --pass bwd --warmup 3 --iters 10 --json $O/steps.jsonl 2>&1 | tee -a $O/steps.log
done
echo "t=$(t)"
