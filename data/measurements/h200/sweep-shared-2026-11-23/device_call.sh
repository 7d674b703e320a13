#!/usr/bin/env bash
# H200 call: GPU kernel tests, then lcab_flash's forward and backward sweeps with the binaries of the backward's
# shared addresses (and the forward's shared-memory items), for the H200 profile's refit.
#   carry: build-carry/{apps/lcab-measure,tests/lcab_kernel_tests} (gzipped; unpacked first)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
TESTS=1 PASSES="fwd bwd" bash data/measurements/h100/sweep-items-2026-11-23/device_call.sh
