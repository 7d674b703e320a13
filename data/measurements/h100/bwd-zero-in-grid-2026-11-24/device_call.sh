#!/usr/bin/env bash
# The dQ accumulator zeroed inside the dK/dV grid (each q tile by the first CTA that claims it) against main before
# the change (4e94736, build-carry/zhead): GPU kernel tests of the new build, then the backward A/B, 3 rounds,
# hd 128 and 64, 32K / 16K / 4K masks.
PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k \
  bash scripts/ab_device_call.sh --tests "${NEW:-zero}" zhead "${NEW:-zero}"
