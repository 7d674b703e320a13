#!/usr/bin/env bash
# build-carry/endrows/lcab-kernel-bench in call 2: the trial build with the conversion units all after the last dK/dV CTA, in the order the played dispatch ends their rows.
LCAB_FLASH_BACKWARD_CONVERSION=end_by_rows exec "$(dirname "$0")/../trial/lcab-kernel-bench" "$@"
