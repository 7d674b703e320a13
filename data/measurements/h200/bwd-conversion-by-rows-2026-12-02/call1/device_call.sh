#!/usr/bin/env bash
# H200 call (nvidia-h200): the Hopper backward's dQ conversion waiting per chunk of rows (a counter per (kv head,
# chunk), counted by the dK/dV CTAs whose q rows meet the chunk) instead of per kv head, and, with
# LCAB_FLASH_BACKWARD_CONVERSION=rows, each chunk placed in the grid where the played dispatch has ended its own
# rows' CTAs (lag 0 or 1 mean CTA durations), against main fb275b5's binary. GPU tests of the trial build with the
# conversion forced to `rows` first (the default placement's run is the A/B script's --tests); then 3 rotating
# rounds of lcab-kernel-bench, bwd, hd 128: causal_document, the window, block_causal_document and band1 at 32K,
# full and causal at 16K, causal_document and causal at 4K.
#   carry: build-carry/base/lcab-kernel-bench.xz (main), build-carry/trial/{lcab-kernel-bench,lcab_kernel_tests}.xz,
#   build-carry/rows{0,1}/lcab-kernel-bench (wrappers setting the variables)
source scripts/device_call_env.sh || exit 2
bash scripts/carry.sh unpack build-carry/trial
LCAB_FLASH_BACKWARD_CONVERSION=rows timeout 300 build-carry/trial/lcab_kernel_tests > "$O/lcab_kernel_tests-rows.txt" 2>&1
test_summary "trial tests, conversion by rows" $? "$O/lcab_kernel_tests-rows.txt"
ROUNDS=3 PASS=bwd HEAD_DIMS=128 MASKS_EXTRA=causal_document,causal SEQ_EXTRA=4k \
  SASS_MATCH=flash_dkdv_sm90 TESTS_TIMEOUT=300 bash scripts/ab_device_call.sh --tests trial base trial rows0 rows1
