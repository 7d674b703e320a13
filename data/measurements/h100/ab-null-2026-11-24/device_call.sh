#!/usr/bin/env bash
# H100 call: a null A/B, main's binary against an identical copy of itself (main, main2: both built from 8a364bd, whose kernels are aa80c5b's), with
# main's GPU kernel tests first: the spread of scripts/ab_device_call.sh's per-cycle comparison when nothing changed,
# and the script's first run on a GPU machine.
#   carry: build-carry/{main,main2}/lcab-kernel-bench, build-carry/main/lcab_kernel_tests (gz)
bash scripts/ab_device_call.sh --tests main main main2
