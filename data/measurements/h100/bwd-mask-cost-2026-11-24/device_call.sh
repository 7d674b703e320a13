#!/usr/bin/env bash
# The backward's in-tile masking, an upper bound of its cost: main (c85130c, build-carry/mbase) against the same
# source with StepCursor's `partial = end_and_partial < 0` replaced by `partial = false && end_and_partial < 0`
# (build-carry/dnomask: no partial tile computes or applies mask bits; its dK, dV and dQ are wrong, the timing is the
# question). One lent H100 (nvidia-h100-x1).
export NCCL_NVLS_ENABLE=0
PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=2 \
  timeout 400 bash scripts/ab_device_call.sh mbase dnomask
