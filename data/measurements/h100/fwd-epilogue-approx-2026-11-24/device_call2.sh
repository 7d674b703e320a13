#!/usr/bin/env bash
# Second H100 call of the same builds (confirmation): four rotating rounds at hd 128 and 64, no tests (they passed in
# the first call with the same binary).
ROUNDS=4 HEAD_DIMS="128 64" bash scripts/ab_device_call.sh base rcp
