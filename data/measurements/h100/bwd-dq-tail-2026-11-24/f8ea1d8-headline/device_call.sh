#!/usr/bin/env bash
# H100 call: the headline comparison of issues 3 and 4 (scripts/headline_benchmark.sh: lcab_flash and cudnn with the
# PyTorch peers, hd 128, shares of lcab_flash's own full mask at 32K as measured and per cycle) with main's binaries of
# f8ea1d8 (the backward's dQ conversion in the dK/dV grid's tail; GPU tests of the same binaries in ../final/).
#   carry: build-carry/apps/{lcab-measure,lcab-predict}.xz (scripts/carry.sh pack)
bash scripts/carry.sh unpack build-carry/apps
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
BUILD=build-carry timeout 560 scripts/headline_benchmark.sh $O/headline > $O/headline.md 2> $O/headline.err
echo "headline rc=$? t=$(( $(date +%s) - T0 ))"; cat $O/headline.md; tail -3 $O/headline.err
