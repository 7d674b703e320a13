#!/usr/bin/env bash
# The six device calls of this trial, as they ran (nvidia-h100-x1; the device tool's command line, run from the
# repository root with build-carry/ carried). Each BUILD is build-carry/BUILD/ holding lcab-kernel-bench (and
# lcab_kernel_tests for --tests), packed with scripts/carry.sh; env variants are wrapper scripts (README of
# scripts/ab_device_call.sh). mbase: main's kernels (cf9111c). The other builds: patches/ (pers3-full.patch against
# cf9111c; the rest against pers3).
#   persblocks: pers with LCAB_FLASH_BACKWARD_GRID=blocks        pers2end: pers2 with LCAB_FLASH_BACKWARD_CONVERSION=end
#   pers24:     pers at 24 / 240 registers (the producer spills)  base232: main at 40 / 232 registers
#   onetime:    pers3 with one item per CTA (loops bounded to 1), LCAB_FLASH_BACKWARD_GRID=blocks
export NCCL_NVLS_ENABLE=0
export PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=2
case "${1:-}" in
  1) timeout 560 bash scripts/ab_device_call.sh --tests pers mbase pers persblocks ;;
  2) timeout 560 bash scripts/ab_device_call.sh mbase pers pers24 base232 ;;
  3) timeout 560 bash scripts/ab_device_call.sh --tests pers2 mbase pers2 pers2end ;;
  4) timeout 560 bash scripts/ab_device_call.sh --tests pers3 mbase pers3 pers2 ;;
  5) timeout 560 bash scripts/ab_device_call.sh mbase pers3 noconv convinline ;;
  6) timeout 560 bash scripts/ab_device_call.sh mbase pers3 onetime ;;
  *) sed -n '2,9p' "$0"; exit 2 ;;
esac
