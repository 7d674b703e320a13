#!/usr/bin/env bash
# H100 call 2: `tail`, `tailoff` (tail's kernel, no conversion CTAs, the old conversion launch after it) and `nofence`
# (tail without the __threadfence before the count) against da6c85b, hd 64 and 128.
# carry: build-carry/{base,tail,tailoff,nofence}.
PASS=bwd SASS_MATCH=flash_dkdv_sm90 ROUNDS=3 HEAD_DIMS="64 128" bash scripts/ab_device_call.sh base tail tailoff nofence
