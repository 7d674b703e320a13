#!/usr/bin/env bash
# H200 call (nvidia-h200), a diagnostic: what the in-steps delta trial's per-step cost is made of
# (../bwd-delta-in-steps-2026-12-03/). Main 38f7d28's lcab-kernel-bench (base) against three builds of diag.patch
# (the trial with 32 / 232 registers, delta still from the pass in front so gradients stay right; kDeltaDiag):
# diag1 loads an O tile beside each step's dO that nobody reads; diag2 loads no O, and the two warps read the
# stage's dO twice and sum it; diag3 loads no O, and the warps only wait for dO and arrive. 3 rotating rounds, bwd,
# hd 128: causal_document, the window, block_causal_document and band1 at 32K, full and causal at 16K.
#   carry: build-carry/base/lcab-kernel-bench.xz (main), build-carry/diag{1,2,3}/lcab-kernel-bench.xz
ROUNDS=3 PASS=bwd HEAD_DIMS="128" SASS_MATCH=flash_dkdv_sm90 bash scripts/ab_device_call.sh base diag1 diag2 diag3
