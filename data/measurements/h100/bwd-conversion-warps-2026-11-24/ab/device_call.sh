#!/usr/bin/env bash
# The A/B call as it ran (nvidia-h100-x1; the device tool's command line from the repository root with build-carry/
# carried): mbase = main's lcab-kernel-bench (cf9111c's kernels); w = the build of ../patches/warps.patch with the
# default placement; wwarps = w with LCAB_FLASH_BACKWARD_CONVERSION=warps (a wrapper script). The first call of this
# A/B (not kept) launched the grid with every conversion unit's block though the warps had taken most units: blocks
# past the list read out of bounds and the 16K and 32K points failed with an illegal address; the kernel tests, whose
# cases are too small for the warps to take a unit, passed. The test LcabFlash.BackwardConversionOnSpareWarpsMatchesConversionCtas
# was added for that and ran here.
export NCCL_NVLS_ENABLE=0
PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=2 \
  timeout 560 bash scripts/ab_device_call.sh --tests w mbase w wwarps
