#!/usr/bin/env bash
# The Hopper backward's last dK/dV CTAs sorted by head (one H200, nvidia-h200): base (main b58c773 plus the env switch
# of tail-by-head.patch, unset) against the last 15%, 30% and 50% of the launch order sorted by kv head (stable), each
# head's conversion placed a wave after its last CTA (LCAB_FLASH_BACKWARD_TAIL_BY_HEAD=0.15|0.3|0.5, wrappers of
# base), where the grid would otherwise convert every head at its end (documents, causal: CTAs of varying length).
# GPU tests of ts30 first; backward, bf16, 64 / 8 heads, hd 128 and 64, 2 rounds.
#   carry: build-carry/base/{lcab-kernel-bench,lcab_kernel_tests}.xz, build-carry/ts{15,30,50} (wrappers)
PASS=bwd HEAD_DIMS="128 64" ROUNDS=2 SASS_MATCH=dkdv MASKS_EXTRA=causal_document SEQ_EXTRA=4k \
  bash scripts/ab_device_call.sh --tests ts30 base ts15 ts30 ts50
