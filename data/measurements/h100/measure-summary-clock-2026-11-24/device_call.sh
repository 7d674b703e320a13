#!/usr/bin/env bash
# H100 call: lcab-measure kernel's summary and progress lines with the SM clock column (main's binary), on a mask of
# each backward kernel (causal: slice walk; block_sparse:block=64: run masks), fwd and bwd at 8K.
#   carry: build-carry/apps/lcab-measure (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/*
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/device.txt
build-carry/apps/lcab-measure kernel --impl lcab_flash --mask causal,block_sparse:block=64 --seqlen 8k --pass fwd,bwd \
  --out $O/lcab-measure.jsonl > $O/summary.md 2> $O/progress.txt
echo "rc=$?"; cat $O/progress.txt $O/summary.md
