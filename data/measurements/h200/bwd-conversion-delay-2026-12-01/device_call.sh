#!/usr/bin/env bash
# The Hopper backward's conversion delay after each head (one H200, nvidia-h200): base (main eb5d9db plus the env
# switch of delay.patch, unset: each head's conversion one wave, sm_count CTAs, after its last dK/dV CTA) against
# 1.25, 1.5 and 2 waves (LCAB_FLASH_BACKWARD_CONVERSION_DELAY_WAVES, wrappers of base). Only the masks whose
# conversion follows each head (full, windows, band1) can move; the others are controls.
# GPU tests of d200 first; backward, bf16, 64 / 8 heads, hd 128 and 64, 2 rounds.
#   carry: build-carry/base/{lcab-kernel-bench,lcab_kernel_tests}.xz, build-carry/d{125,150,200} (wrappers)
PASS=bwd HEAD_DIMS="128 64" ROUNDS=2 SASS_MATCH=dkdv MASKS_EXTRA=sliding_window_causal SEQ_EXTRA=4k \
  bash scripts/ab_device_call.sh --tests d200 base d125 d150 d200
