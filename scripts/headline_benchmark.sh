#!/usr/bin/env bash
# The kernel comparison of issues 3 and 4, all in one run on one GPU: lcab_flash and cudnn through lcab-measure,
# PyTorch SDPA (cuDNN and FlashAttention-2 backends) and FlexAttention through measure/peers/torch_peers.py; bf16,
# hd 128 (HEAD_DIM), 64 q / 8 kv heads, batch 1; full and causal at 4K, 16K, 32K, the masked patterns at 32K; fwd
# and bwd. Records go to OUTDIR (JSON Lines), the table (TFLOP/s, fwd / bwd) to stdout, then lcab_flash's masked
# patterns as shares of its own full mask at 32K, as measured and per cycle (the SM clock in lcab-measure's records).
#
#   scripts/headline_benchmark.sh OUTDIR     (environment: BUILD, default build; REPS 7; WARMUP 3; HEAD_DIM 128)
#
# BUILD must hold apps/lcab-measure and apps/lcab-predict (the peers' script builds its masks with lcab-predict): the
# script checks both before it measures anything, so a call on a GPU machine is not spent on half a comparison.
set -uo pipefail
out=${1:?output directory}
build=${BUILD:-build}
reps=${REPS:-7}
warmup=${WARMUP:-3}
for tool in lcab-measure lcab-predict; do
  if [[ ! -x "$build/apps/$tool" ]]; then
    echo "headline_benchmark.sh: $build/apps/$tool is missing or not executable (BUILD=$build)" >&2
    exit 2
  fi
done
mkdir -p "$out"
export PATH="$PWD/$build/apps:$PATH"
shape=(--heads 64 --kv-heads 8 --head-dim "${HEAD_DIM:-128}" --pass fwd,bwd --warmup "$warmup" --reps "$reps")
masked="causal_document,sliding_window_causal,block_causal_document"
for part in "full,causal 4k,16k,32k" "$masked 32k"; do
  set -- $part
  "$build/apps/lcab-measure" kernel --impl lcab_flash,cudnn --mask "$1" --seqlen "$2" --dtype bf16 "${shape[@]}" \
    --out "$out/lcab-measure.jsonl" > /dev/null
  python3 measure/peers/torch_peers.py --impl torch_sdpa_cudnn,torch_sdpa_flash,torch_flex --mask "$1" --seqlen "$2" \
    "${shape[@]}" --max-dense-mask-bytes 0 --out "$out/torch-peers.jsonl" > /dev/null
done
python3 - "$out/lcab-measure.jsonl" "$out/torch-peers.jsonl" <<'PY'
import json, sys
cells, rates = {}, {}
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)
        k = r["key"]
        v = f"{r['tflops']:.0f}" if r.get("status") == "ok" else r.get("status", "?")
        cells[(k["impl"], k["mask"], k["seqlen"], k["pass"])] = v
        if r.get("status") == "ok":
            rates[(k["impl"], k["mask"], k["seqlen"], k["pass"])] = (r["tflops"], (r.get("sm_clock_mhz") or {}).get("median"))
impls = ["lcab_flash", "cudnn", "torch_sdpa_cudnn", "torch_sdpa_flash", "torch_flex"]
rows = [(m, s) for m in ("full", "causal") for s in (4096, 16384, 32768)]
rows += [(m, 32768) for m in ("causal_document", "sliding_window_causal", "block_causal_document")]
print("| mask | S | " + " | ".join(impls) + " |")
print("|---|---:|" + "---|" * len(impls))
for m, s in rows:
    vals = [f"{cells.get((i, m, s, 'fwd'), '-')} / {cells.get((i, m, s, 'bwd'), '-')}" for i in impls]
    print(f"| {m} | {s // 1024}K | " + " | ".join(vals) + " |")
# lcab_flash's masked patterns against its own full mask at 32K: as measured, and per cycle (TFLOP/s per GHz of the
# SM clock lcab-measure recorded), which the board's power state does not move (README, *Clocks*).
def share(mask, pas, per_cycle):
    a, b = rates.get(("lcab_flash", mask, 32768, pas)), rates.get(("lcab_flash", "full", 32768, pas))
    if not a or not b or (per_cycle and not (a[1] and b[1])):
        return "-"
    return f"{100 * (a[0] / a[1] if per_cycle else a[0]) / (b[0] / b[1] if per_cycle else b[0]):.1f}%"
print()
print("| lcab_flash at 32K, share of its full mask | fwd | bwd | fwd per cycle | bwd per cycle |")
print("|---|---:|---:|---:|---:|")
for m in ("causal_document", "sliding_window_causal", "block_causal_document"):
    print(f"| {m} | {share(m, 'fwd', False)} | {share(m, 'bwd', False)} | {share(m, 'fwd', True)} | {share(m, 'bwd', True)} |")
PY
