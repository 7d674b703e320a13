#!/usr/bin/env bash
# Round 7: zero6 = zero5 without sequentially consistent fences (MEMBAR.SC.GPU): the claims' acquire is a
# fence.acq_rel after the compare-and-swap, the publication a red.release after __syncwarp, and polls are relaxed
# loads (no L1 invalidation per poll) followed by one acquire fence.
PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=2 \
  bash scripts/ab_device_call.sh --tests zero6 zhead zero6
