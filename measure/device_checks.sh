#!/usr/bin/env bash
# One device-machine call: GPU tests of measure/, a small kernel sweep with a trace, a one-GPU comm sweep and the
# PyTorch peers. Binaries come prebuilt in BIN (default build-measure/dev-bin); everything lands in OUT.
#   bash measure/device_checks.sh BIN OUT
set -u
BIN=${1:-build-measure/dev-bin}
OUT=${2:-/tmp/lcab-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
# Find libnccl/libcupti where the toolkit lacks them (PyTorch's wheels ship both).
for lib in libnccl.so.2 libcupti.so.13; do
  if ldd "$BIN/lcab-measure" | grep -q "$lib => not found"; then
    dir=$(python3 - "$lib" <<'PY'
import glob, os, site, sys
for root in site.getsitepackages():
    hits = glob.glob(os.path.join(root, "nvidia", "**", sys.argv[1]), recursive=True)
    if hits:
        print(os.path.dirname(hits[0])); break
PY
)
    [ -n "$dir" ] && export LD_LIBRARY_PATH="$dir:$LD_LIBRARY_PATH"
  fi
done
nvidia-smi -L
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | sed 's/^NVIDIA //; s/[^A-Za-z0-9]\+/_/g' | tr 'A-Z' 'a-z' | sed 's/_$//')
echo "device folder: $dev"

echo "== lcab_measure_tests"
"$BIN/lcab_measure_tests" 2>&1 | tee "$OUT/tests.log" | grep -E "OK|FAILED|SKIPPED|PASSED|Failure|error" | tail -40

echo "== lcab-measure kernel"
timeout 90 "$BIN/lcab-measure" kernel --impl lcab_flash \
  --mask causal,full,causal_document,sliding_window_causal:window=1024 --seqlen 4k,16k --pass fwd,bwd \
  --heads 64 --kv-heads 8 --head-dim 128 --out "$OUT/kernels.jsonl" 2> "$OUT/kernel.err"
timeout 40 "$BIN/lcab-measure" kernel --impl naive --mask causal,full --seqlen 4k --pass fwd,bwd \
  --heads 64 --kv-heads 8 --head-dim 128 --out "$OUT/kernels.jsonl" 2>> "$OUT/kernel.err"
tail -5 "$OUT/kernel.err"
timeout 30 "$BIN/lcab-measure" kernel --impl lcab_flash --mask causal --seqlen 8k --pass bwd --reps 3 \
  --trace "$OUT/kernel_trace.json" > /dev/null 2>> "$OUT/kernel.err"

echo "== lcab-measure comm"
timeout 40 "$BIN/lcab-measure" comm -b 1M -e 256M -f 4 --out "$OUT/comm.jsonl" --trace "$OUT/comm_trace.json" 2>&1 | tail -30

echo "== torch peers"
PEERS="python3 measure/peers/torch_peers.py --lcab-predict $BIN/lcab-predict --heads 64 --kv-heads 8 --head-dim 128"
PYTHONUNBUFFERED=1 timeout 60 $PEERS --impl torch_sdpa_flash,torch_sdpa_cudnn,torch_sdpa_efficient \
  --mask causal,causal_document --seqlen 4k,16k --pass fwd,bwd --out "$OUT/peers.jsonl" 2> "$OUT/peers.err"
PYTHONUNBUFFERED=1 timeout 80 $PEERS --impl torch_flex --mask causal,causal_document --seqlen 16k --pass fwd,bwd \
  --reps 10 --out "$OUT/peers.jsonl" 2>> "$OUT/peers.err"
grep -v Warning "$OUT/peers.err" | tail -12
ls -la "$OUT"
