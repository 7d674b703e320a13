#!/usr/bin/env bash
# main 7a83a8c's binaries (build-carry/final: the hd 64 mma.sync backward at 128 queries per step, the cursor a step
# ahead) on one H200, in one call:
#   1. the three GPU test suites;
#   2. the wide hd 64 backward with an A100's shared memory (LCAB_FLASH_SMEM_CARVEOUT=71, about 164 KiB per SM):
#      that its 162 KiB CTA launches there, timed once;
#   3. lcab_flash_sm80 and lcab_flash beside PyTorch SDPA's FlashAttention-2 (lcab-measure, torch_peers.py; bf16,
#      64 / 8 heads, full and causal at 16K, hd 128 and 64, 3 warm-ups and 7 repetitions), as
#      ../../sm80-bwd-warp-pairs-2026-12-04/final/ ran with main 5265167's binaries and the warp pairs;
#   4. scripts/ab_device_call.sh of the backward per cycle: final and narrow (final's binary with
#      LCAB_FLASH_BACKWARD_QUERIES=64, the tile sm_86/89 run) against main fcfca4b (build-carry/main), 2 rounds.
# 1-3 come back as results.tgz, 4 as ab/results.tgz.
source scripts/device_call_env.sh || exit 2
B=build-carry/final
bash scripts/carry.sh unpack $B > /dev/null
device_info
gpu_test_suites $B 300
LCAB_FLASH_SMEM_CARVEOUT=71 timeout 120 $B/lcab-kernel-bench --impl lcab_flash_sm80 --mask full --seqlen 16k \
  --head-dim 64 --pass bwd --warmup 3 --iters 10 --json "$O/a100-carveout.jsonl" > "$O/a100-carveout.txt" 2>&1
echo "a100 carveout rc=$? t=$(t)"
shape=(--heads 64 --kv-heads 8 --pass fwd,bwd --warmup 3 --reps 7)
for hd in 128 64; do
  $B/lcab-measure kernel --impl lcab_flash_sm80,lcab_flash --mask full,causal --seqlen 16k --dtype bf16 --head-dim $hd \
    "${shape[@]}" --out "$O/lcab-measure.jsonl" > /dev/null 2>> "$O/measure.err"
  python3 measure/peers/torch_peers.py --impl torch_sdpa_flash --mask full,causal --seqlen 16k --head-dim $hd \
    "${shape[@]}" --max-dense-mask-bytes 0 --lcab-predict $B/lcab-predict --out "$O/torch-peers.jsonl" \
    > /dev/null 2>> "$O/peers.err"
  echo "timed hd $hd t=$(t)"
done
python3 - "$O/lcab-measure.jsonl" "$O/torch-peers.jsonl" <<'PY' | tee "$O/summary.txt"
import json, sys
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line); k = r["key"]
        print(k.get("impl"), k.get("mask"), k.get("seqlen"), k.get("head_dim"), k.get("pass"), r.get("status"),
              round(r.get("tflops", 0) or 0, 1), round((r.get("sm_clock_mhz") or {}).get("median") or 0))
PY
OUT=$OUT/ab IMPL=lcab_flash_sm80 PASS=bwd HEAD_DIMS="128 64" ROUNDS=2 SASS_MATCH=flash_dkdv_kernel \
  bash scripts/ab_device_call.sh main final narrow | grep -E "geometric|^bwd"
