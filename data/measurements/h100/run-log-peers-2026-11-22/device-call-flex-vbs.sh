#!/usr/bin/env bash
# Device call 8 (H100): FlexAttention on variable_block_sparse at 32K and 64K, every shape, with the row-chunked
# BlockMask (create_block_mask ran out of memory there).
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 PATH="$PWD/build-carry/apps:$PATH"
O=$OUT/r; mkdir -p $O; cp build-carry/r6/torch-peers-flex-vbs.jsonl $O/
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv | tee -a $O/device.txt
timeout ${T:-500} python3 measure/peers/torch_peers.py --impl torch_flex --mask variable_block_sparse --seqlen 32k,64k \
  --pass fwd,bwd --heads 64 --kv-heads 8,64 --head-dim 128,64 --warmup 2 --reps 5 \
  --out $O/torch-peers-flex-vbs.jsonl > $O/flex-vbs.md 2> $O/flex-vbs.err
tail -20 $O/flex-vbs.err | cut -c1-300
