#!/usr/bin/env bash
# Third H100 call: the lse's log alone on the special-function unit (r2: lg2.approx; the IEEE 1 / sum kept, so the
# consumers' loop compiles to main's SASS and only the epilogue differs) beside both (rcp) and main (base): GPU kernel
# tests of r2, three rotating rounds at hd 128 and 64.
HEAD_DIMS="128 64" bash scripts/ab_device_call.sh --tests r2 base r2 rcp
