#!/usr/bin/env bash
# Round 4: zero4 (steps announced in order, as each tile is ready), zero4nf (zero4 with the proxy fence in the
# claiming warp instead of the gate's every step) and zeroctl (main's kernel with the producer warpgroup at 40
# registers and the consumers at 232, as zero3 and zero4 have: the register split alone) against main (zhead).
PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=2 \
  bash scripts/ab_device_call.sh --tests zero4 zhead zero4 zero4nf zeroctl
