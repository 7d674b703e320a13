#!/usr/bin/env bash
# The Hopper backward's dQ conversion in the grid's tail (one H200, nvidia-h200): main (fa5e95b, kernels as 2957b7c's)
# against
#   lean:       convert_dq_tail's loop from locals (no pointer reloads through the kernel's arguments after each store,
#               no integer division per vector), 16 loads of 16 bytes in flight per thread (96 KiB per SM; main 48)
#   spread:     lean, each head's conversion units spread over the later dK/dV CTAs
#               (LCAB_FLASH_BACKWARD_CONVERSION_SPREAD=1; a wrapper of lean's binaries)
#   mainspread: main's kernels with the spread order (hostonly: main's .cu, the host change)
# GPU tests of lean (its own order) and of spread first; backward, bf16, 64 / 8 heads, hd 128 and 64, 2 rounds.
#   carry: build-carry/{main,lean}/{lcab-kernel-bench,lcab_kernel_tests}.xz, build-carry/hostonly/lcab-kernel-bench.xz,
#          build-carry/{spread,mainspread} (wrappers)
export NCCL_NVLS_ENABLE=0 LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu
bash scripts/carry.sh unpack build-carry/lean > /dev/null
timeout 200 build-carry/lean/lcab_kernel_tests > "$OUT/lcab_kernel_tests-lean.txt" 2>&1
echo "lean tests rc=$? $(grep -E '^\[  (PASSED|FAILED) +\]' "$OUT/lcab_kernel_tests-lean.txt" | tr '\n' ' ')"
PASS=bwd HEAD_DIMS="128 64" ROUNDS=2 SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k \
  bash scripts/ab_device_call.sh --tests spread main lean spread mainspread
