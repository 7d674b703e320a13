#!/usr/bin/env bash
# final's lcab-kernel-bench with the mma.sync backward's narrow hd 64 tile forced (64 queries per step).
LCAB_FLASH_BACKWARD_QUERIES=64 exec "$(dirname "$0")/../final/lcab-kernel-bench" "$@"
