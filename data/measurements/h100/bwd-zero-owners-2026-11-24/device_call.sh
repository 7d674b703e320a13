#!/usr/bin/env bash
# The four device calls of the trial, as run (one lent H100, nvidia-h100-x1), each against main before it
# (c85130c, build-carry/mbase). Builds (NOTE.md): z40 = patches/zt-full.patch with one zeroing warp storing through
# its own st.global and a release per tile; z32 = z40 at 32 / 240 registers; zc1 / zc2 = releases in batches, one /
# two zeroing warps; zt = patches/zt-full.patch (TMA stores, two warps at hd 256); dgateonly / dstoreonly =
# patches/*-vs-zt.patch. `zmem` (call 1, never reached) was z40's binary run with LCAB_FLASH_BACKWARD_ZERO=memset.
export NCCL_NVLS_ENABLE=0
A=(env PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=2)
case "${CALL:-1}" in
  1) timeout 570 "${A[@]}" bash scripts/ab_device_call.sh --tests z40 mbase z40 z32 zmem ;;
  2) timeout 540 "${A[@]}" bash scripts/ab_device_call.sh mbase zc1 zc2 ;;
  3) timeout 540 "${A[@]}" bash scripts/ab_device_call.sh --tests zt mbase zc2 zt ;;
  4) timeout 540 "${A[@]}" bash scripts/ab_device_call.sh mbase zt dgateonly dstoreonly ;;
esac
