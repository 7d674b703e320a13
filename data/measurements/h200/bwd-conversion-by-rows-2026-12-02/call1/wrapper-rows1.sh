#!/usr/bin/env bash
# build-carry/rows1/lcab-kernel-bench in call 1: the trial build with each conversion chunk placed by its own rows, lag 1 mean CTAs.
LCAB_FLASH_BACKWARD_CONVERSION=rows LCAB_FLASH_BACKWARD_CONVERSION_LAG=1 exec "$(dirname "$0")/../trial/lcab-kernel-bench" "$@"
