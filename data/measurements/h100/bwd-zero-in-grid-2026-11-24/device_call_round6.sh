#!/usr/bin/env bash
# Round 6, where zero5's loss comes from (both keep the memset before the grid, so their results stay right):
# dgate = zero5 with no claims (every step announced as soon as walked: the gating warp's third q_full arrival and
# the claiming warp's walk alone); dcas = zero5 with the claims, publications and waits but no zero stores.
PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=1 \
  bash scripts/ab_device_call.sh zhead dgate dcas
