#!/usr/bin/env bash
# Fourth H100 call: r2 (the lse's log on the SFU alone; the loop's SASS is main's) against main, five rotating rounds
# at hd 128 and 64, to tell the full mask's -0.8% at hd 128 in the third call from noise.
ROUNDS=5 HEAD_DIMS="128 64" bash scripts/ab_device_call.sh base r2
