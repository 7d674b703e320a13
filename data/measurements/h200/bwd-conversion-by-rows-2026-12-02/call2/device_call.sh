#!/usr/bin/env bash
# H200 call (nvidia-h200), the second: main fb275b5's binary against the trial build (the conversion waiting per
# chunk of rows, main's placement) and the same build with LCAB_FLASH_BACKWARD_CONVERSION=end_by_rows (every unit
# after the last dK/dV CTA, in the order the played dispatch ends their rows), at hd 128, 64 and 256. GPU tests of
# the trial build with end_by_rows forced first (the default's run is the A/B script's --tests); then 3 rotating
# rounds of lcab-kernel-bench, bwd: causal_document, the window, block_causal_document and band1 at 32K, full and
# causal at 16K, causal_document, causal and the window at 4K.
#   carry: build-carry/base/lcab-kernel-bench.xz (main), build-carry/trial/{lcab-kernel-bench,lcab_kernel_tests}.xz,
#   build-carry/endrows/lcab-kernel-bench (a wrapper setting the variable)
source scripts/device_call_env.sh || exit 2
bash scripts/carry.sh unpack build-carry/trial
LCAB_FLASH_BACKWARD_CONVERSION=end_by_rows timeout 300 build-carry/trial/lcab_kernel_tests > "$O/lcab_kernel_tests-endrows.txt" 2>&1
test_summary "trial tests, conversion at the end by rows" $? "$O/lcab_kernel_tests-endrows.txt"
ROUNDS=3 PASS=bwd HEAD_DIMS="128 64 256" MASKS_EXTRA=causal_document,causal,sliding_window_causal SEQ_EXTRA=4k \
  SASS_MATCH=flash_dkdv_sm90 TESTS_TIMEOUT=300 bash scripts/ab_device_call.sh --tests trial base trial endrows
