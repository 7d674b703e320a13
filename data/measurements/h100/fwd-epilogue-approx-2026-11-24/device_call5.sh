#!/usr/bin/env bash
# Fifth H100 call: r2 against main at hd 256 (its consumers' SASS differs from main's beyond the epilogue, since
# hd 256 computes its row totals under the last P V), three rotating rounds.
HEAD_DIMS="256" bash scripts/ab_device_call.sh base r2
