#!/usr/bin/env bash
# Round 5: zero5 (steps announced in order; every claim published before any wait: zero4 could deadlock), zero5nf (zero5 with the proxy fence in the
# claiming warp instead of the gate's every step) and zeroctl (main's kernel with the producer warpgroup at 40
# registers and the consumers at 232, as zero3 and zero5 have: the register split alone) against main (zhead).
PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=2 \
  bash scripts/ab_device_call.sh --tests zero5 zhead zero5 zero5nf zeroctl
