#!/usr/bin/env bash
# Device call 7 (H100): FlexAttention at 64/64 (MHA) hd 128, then the SDPA dense-mask sweep, resumable (r5/).
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 BUILD=build-carry
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
cp build-carry/r5/* $O/ 2>/dev/null
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee -a $O/device.txt
H=data/measurements/h100
export SKIP_RECORDED_IN="$H/torch-peers-flex-compiled-2026-11-22.jsonl $H/torch-peers-sdpa-sweep-2026-11-22.jsonl"
FLEX_SEQLENS=1k,2k,4k,8k,16k,32k,64k FLEX_KV_HEADS=${KVS:-64} FLEX_HEAD_DIMS=${HDS:-128} timeout ${FLEX_S:-380} \
  scripts/kernel_campaign.sh flex $O >> $O/flex.md 2>> $O/flex.err; tail -2 $O/flex.err | cut -c1-200
echo "flex stopped at $(( $(date +%s) - T0 )) s"
left=$(( ${TOTAL_S:-560} - ($(date +%s) - T0) ))
timeout $left scripts/kernel_campaign.sh sdpa $O >> $O/sdpa.md 2>> $O/sdpa.err; tail -2 $O/sdpa.err | cut -c1-200
echo "sdpa stopped at $(( $(date +%s) - T0 )) s"
