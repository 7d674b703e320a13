#!/usr/bin/env bash
# The calls of this folder, as run (one lent H100, nvidia-h100-x1), each against main before the change (c85130c's
# kernels, build-carry/mbase), bwd, hd 128 and 64, 2 rounds (scripts/ab_device_call.sh). Builds:
#   ta: the grid's blocks as a list (grid_items), LCAB_FLASH_TAIL_DELAY_WAVES=W placing each head's conversion W waves
#       after its last dK/dV CTA (unset: at the end); ta_end / ta_w1 / tb_* are wrappers setting it (patches/).
#   tb: ta with kUnroll 32 in convert_dq_tail (4x the loads in flight per thread).
#   ta2: ta after the host fix of call 1 (to_i32 refused the negative entries), with LCAB_FLASH_TAIL_DELAY_WAVES=played
#        (interleave_backward_conversion_played in patches/played-and-delays.patch); ta2p / ta2w1 wrappers.
#   final: main's binaries after the change (backward_conversion_after_heads), with the measure and cp tests.
export NCCL_NVLS_ENABLE=0
A=(env PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=2)
case "${CALL:-4}" in
  1|2) timeout 560 "${A[@]}" bash scripts/ab_device_call.sh --tests ta mbase ta_end ta_w1 tb tb_w1 tb_w2 ;;
  3) timeout 560 "${A[@]}" bash scripts/ab_device_call.sh --tests ta2p mbase ta2 ta2p ta2w1 ;;
  4) B=build-carry/final
     timeout 300 "${A[@]}" bash scripts/ab_device_call.sh --tests final mbase final
     source scripts/device_call_env.sh || exit 2
     timeout 90 $B/lcab_measure_tests > $O/lcab_measure_tests.txt 2>&1; test_summary measure $? $O/lcab_measure_tests.txt
     timeout 90 $B/lcab_cp_tests > $O/lcab_cp_tests.txt 2>&1; test_summary cp $? $O/lcab_cp_tests.txt ;;
esac
