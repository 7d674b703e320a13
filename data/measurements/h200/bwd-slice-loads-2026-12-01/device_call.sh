#!/usr/bin/env bash
# The Hopper backward's partial-tile slice loads (one H200, nvidia-h200): main (4a3ba75) against
#   vec:      each slice of the q-tile row loaded as three 8-byte non-coherent loads (visible_rows, flash_common.cuh)
#   early:    vec, and the row's first slice offset loaded before the consumer's stage wait
#   runmasks: main's binary with LCAB_FLASH_BACKWARD_MASKING=run_masks (the run-mask kernel on every mask)
# GPU tests of `early` first; backward, bf16, 64 / 8 heads, hd 128 and 64, 2 rounds, per cycle.
#   carry: build-carry/{main,vec,early}/{lcab-kernel-bench,lcab_kernel_tests}.xz, build-carry/runmasks (a wrapper)
PASS=bwd HEAD_DIMS="128 64" ROUNDS=2 SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k \
  bash scripts/ab_device_call.sh --tests early main vec early runmasks
