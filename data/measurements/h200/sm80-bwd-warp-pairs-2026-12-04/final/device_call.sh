#!/usr/bin/env bash
# The warp-pairs backward's binaries (build-carry/final: main 5265167 with this folder's change) on one H200: the
# three GPU test suites, then lcab_flash_sm80 (the mma.sync path an A100 runs) and lcab_flash beside PyTorch SDPA's
# FlashAttention-2 in the same call (lcab-measure, torch_peers.py; bf16, 64 / 8 heads, full and causal at 16K, hd 128
# and 64, 3 warm-ups and 7 repetitions), as ../sm80-vs-fa2-2026-12-03-final/ ran with main 7d314c7's binaries.
# Everything comes back as one archive, all.tgz.
source scripts/device_call_env.sh || exit 2
trap 'tar czf "$OUT/all.tgz" -C "$OUT" r && rm -rf "$O"' EXIT
B=build-carry/final
bash scripts/carry.sh unpack $B > /dev/null
device_info
gpu_test_suites $B 300
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
