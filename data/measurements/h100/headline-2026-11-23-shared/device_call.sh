#!/usr/bin/env bash
# H100 call: the headline comparison (scripts/headline_benchmark.sh) with the final binaries of 2026-11-23
# (the forward's shared-memory items, the mask bits, the backward's shared addresses).
#   carry: build-carry/apps/{lcab-measure,lcab-predict} (gzipped; unpacked first)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
BUILD=build-carry timeout 280 scripts/headline_benchmark.sh $O > $O/headline.md 2> $O/headline.err
echo "headline rc=$?"; cat $O/headline.md
