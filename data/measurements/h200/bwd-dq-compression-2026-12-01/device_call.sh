#!/usr/bin/env bash
# The Hopper backward's fp32 dQ accumulator in compressible memory, and the busy warpgroup's dQ over its own 64 keys in
# idle-half steps (one H200, nvidia-h200):
#   comp:   main plus kernels/compressible_buffer: the accumulator allocated compressible (Compute Data Compression,
#           CU_MEM_ALLOCATION_COMP_GENERIC) where the driver grants it; kernels as main's
#   plain:  comp's binary with LCAB_FLASH_DQ_COMPRESSION=0 (cudaMalloc, as main; a wrapper)
#   idle64: comp plus, in idle-half steps (hd 128), the busy warpgroup's dQ product over its own 64 keys, and no zero
#           rows of dS^T from the idle warpgroup
# GPU tests of comp and idle64 first; backward, bf16, 64 / 8 heads, hd 128 and 64, 2 rounds.
#   carry: build-carry/{comp,idle64}/{lcab-kernel-bench,lcab_kernel_tests}.xz, build-carry/plain (wrapper)
export NCCL_NVLS_ENABLE=0 LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu
bash scripts/carry.sh unpack build-carry/comp > /dev/null
timeout 200 build-carry/comp/lcab_kernel_tests > "$OUT/lcab_kernel_tests-comp.txt" 2>&1
echo "comp tests rc=$? $(grep -E '^\[  (PASSED|FAILED) +\]|compression supported' "$OUT/lcab_kernel_tests-comp.txt" | tr '\n' ' ')"
PASS=bwd HEAD_DIMS="128 64" ROUNDS=2 SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k \
  bash scripts/ab_device_call.sh --tests idle64 comp plain idle64
