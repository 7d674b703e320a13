#!/usr/bin/env bash
# lcab_flash_sm80 (the mma.sync path) against PyTorch SDPA's FlashAttention-2 on one H200, side by side in one call:
# timings (lcab-measure, torch_peers.py), then one Nsight Compute launch of each forward and backward kernel at full
# 16K, hd 128 (clocks left alone), exported as details and per-instruction source CSV (scripts/ncu_stalls.py).
source scripts/device_call_env.sh || exit 2
B=build-carry/sm80diag
bash scripts/carry.sh unpack $B
export PATH="$PWD/$B:$PATH"
device_info
shape=(--heads 64 --kv-heads 8 --pass fwd,bwd --warmup 3 --reps 7)
for hd in 128 64; do
  $B/lcab-measure kernel --impl lcab_flash_sm80,lcab_flash --mask full,causal --seqlen 16k --dtype bf16 --head-dim $hd \
    "${shape[@]}" --out "$O/lcab-measure.jsonl" > /dev/null 2>> "$O/measure.err"
  python3 measure/peers/torch_peers.py --impl torch_sdpa_flash --mask full,causal --seqlen 16k --head-dim $hd \
    "${shape[@]}" --max-dense-mask-bytes 0 --lcab-predict $B/lcab-predict --out "$O/torch-peers.jsonl" \
    > /dev/null 2>> "$O/peers.err"
  echo "timed hd $hd t=$(t)"
done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
          --section SourceCounters --section ComputeWorkloadAnalysis --section InstructionStats
          --section MemoryWorkloadAnalysis_Tables)
prof() {  # NAME KERNEL_REGEX CMD...
  local name=$1 re=$2; shift 2
  timeout 150 "$NCU" --clock-control none --target-processes all --kernel-name "regex:$re" --launch-skip 1 \
    --launch-count 1 "${sections[@]}" -f -o "$O/$name" "$@" > "$O/$name.log" 2>&1
  echo "ncu $name rc=$? t=$(t)"
  "$NCU" --import "$O/$name.ncu-rep" --page details --csv > "$O/$name-details.csv" 2>/dev/null
  "$NCU" --import "$O/$name.ncu-rep" --page source --csv --print-source sass 2>/dev/null | gzip -9n > "$O/$name-source.csv.gz"
}
one=(--mask full --seqlen 16k --dtype bf16 --head-dim 128 --heads 64 --kv-heads 8 --warmup 1 --reps 1)
prof ours-fwd flash_forward_kernel $B/lcab-measure kernel --impl lcab_flash_sm80 --pass fwd "${one[@]}" --out /tmp/x.jsonl
prof fa2-fwd flash_fwd_kernel python3 measure/peers/torch_peers.py --impl torch_sdpa_flash --pass fwd "${one[@]}" \
  --max-dense-mask-bytes 0 --lcab-predict $B/lcab-predict
prof ours-bwd flash_dkdv_kernel $B/lcab-measure kernel --impl lcab_flash_sm80 --pass bwd "${one[@]}" --out /tmp/y.jsonl
prof fa2-bwd flash_bwd_dq_dk_dv python3 measure/peers/torch_peers.py --impl torch_sdpa_flash --pass bwd "${one[@]}" \
  --max-dense-mask-bytes 0 --lcab-predict $B/lcab-predict
rm -f "$O"/*.ncu-rep
python3 - "$O/lcab-measure.jsonl" "$O/torch-peers.jsonl" <<'PY' | tee "$O/summary.txt"
import json, sys
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line); k = r["key"]
        print(k.get("impl"), k.get("mask"), k.get("seqlen"), k.get("head_dim"), k.get("pass"),
              r.get("status"), round(r.get("tflops", 0) or 0, 1), (r.get("sm_clock_mhz") or {}).get("median"),
              [x["name"][:60] for x in r.get("kernels", [])])
PY
