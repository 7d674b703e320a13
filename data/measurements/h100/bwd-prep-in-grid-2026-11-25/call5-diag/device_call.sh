# The device call as it ran (nvidia-h100-x1, carry: build-carry/base build-carry/diag0 .. diag3).
#   build-carry/base:  lcab-kernel-bench of main (9cfb8a9), packed by scripts/carry.sh
#   build-carry/diagN: lcab-kernel-bench with ../patches/v4-diagnosis.patch and `#define LCAB_PREP_DIAG N` as the first
#                      line of kernels/hopper/flash_backward_sm90.cu:
#                        0: v4 as it is (the same code as call 3's build);
#                        1: the mechanism alone: the tiles claimed and released but nothing prepared, with the
#                           preprocess (zeroing, delta) launched before the grid as on main;
#                        2: as 1, and the claimed tiles' accumulator rows zeroed in the grid (again);
#                        3: as 1, and the claimed tiles' delta computed in the grid (again).
#                      Builds 1-3 compute correct results (the preprocess does the work); no GPU tests ran in this call
#                      (call 3 ran them on build 0's code).
export NCCL_NVLS_ENABLE=0; PASS=bwd HEAD_DIMS="128" SASS_MATCH=dkdv MASKS_EXTRA=causal_document,sliding_window_causal SEQ_EXTRA=4k ROUNDS=2 timeout 570 bash scripts/ab_device_call.sh base diag0 diag1 diag2 diag3
