#!/usr/bin/env bash
# H100 call 3: `tail`, `noinl` (the conversion __noinline__: adopted in f8ea1d8) and `sigend` (the counts after the
# dK/dV stores) against da6c85b, hd 64 and 128. carry: build-carry/{base,tail,noinl,sigend}.
PASS=bwd SASS_MATCH=flash_dkdv_sm90 ROUNDS=3 HEAD_DIMS="64 128" bash scripts/ab_device_call.sh base tail noinl sigend
