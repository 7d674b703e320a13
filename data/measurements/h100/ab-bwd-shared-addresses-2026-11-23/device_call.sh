#!/usr/bin/env bash
# H100 call: the backward's shared memory addressed by 32-bit shared addresses (no spills). GPU kernel tests, an
# A/B of the backward (base = the binary of the forward's items commit, 5ff6ba6; new = this one), then the backward
# sweep with the new binary. Reuses the two scripts of this session's earlier calls.
#   carry: build-carry/{apps/lcab-kernel-bench,apps/lcab-measure,tests/lcab_kernel_tests,base/lcab-kernel-bench}
PASSES=bwd bash data/measurements/h100/ab-fwd-items-mask-bits-2026-11-23/device_call.sh
mv $OUT/r/lcab-measure-kernel-bwd-items.jsonl $OUT/r/previous-sweep.jsonl 2>/dev/null
PASSES=bwd bash data/measurements/h100/sweep-items-2026-11-23/device_call.sh | grep -v name
