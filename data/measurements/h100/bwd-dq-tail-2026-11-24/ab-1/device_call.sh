#!/usr/bin/env bash
# H100 call 1: GPU kernel tests of the `tail` build (the conversion inlined, 2 MiB chunks), then its backward against
# main before the change (da6c85b) per cycle. carry: build-carry/{base,tail} (scripts/carry.sh pack).
PASS=bwd SASS_MATCH=flash_dkdv_sm90 ROUNDS=3 bash scripts/ab_device_call.sh --tests tail base tail
