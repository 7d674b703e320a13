#!/usr/bin/env bash
# The device calls of this measurement, as they ran (nvidia-h200; the device tool's command line, run from the
# repository root with build-carry/ carried; README of scripts/ab_device_call.sh).
#   base: main's lcab-kernel-bench (e871af4).
#   trial: the working tree on e871af4 with delta beside the grid (kernels/hopper/backward_delta_sm90.cu), its
#     lcab-kernel-bench and lcab_kernel_tests.
#   front: a wrapper, the trial's binary with LCAB_FLASH_BACKWARD_DELTA=front (delta all in front, as main):
#       #!/usr/bin/env bash
#       export LCAB_FLASH_BACKWARD_DELTA=front
#       exec "$(dirname "$0")/../trial/lcab-kernel-bench" "$@"
export NCCL_NVLS_ENABLE=0
case "${1:-}" in
  1) export PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=sliding_window_causal,causal_document SEQ_EXTRA=4k ROUNDS=2 TESTS_TIMEOUT=300
     timeout 590 bash scripts/ab_device_call.sh --tests trial base trial front ;;
  2) # trial: bulk copies in the beside kernel, its SMs at the largest shared-memory carveout (call 1's build: 16-byte
     # cp.async per lane, default carveout); then lcab-measure's per-kernel GPU times (CUPTI) of trial and front.
     export PASS=bwd HEAD_DIMS="128 64" SASS_MATCH=dkdv MASKS_EXTRA=sliding_window_causal,causal_document SEQ_EXTRA=4k ROUNDS=2 TESTS_TIMEOUT=300
     timeout 400 bash scripts/ab_device_call.sh --tests trial base trial front
     source scripts/device_call_env.sh
     for d in beside front; do
       LCAB_FLASH_BACKWARD_DELTA=$d timeout 100 build-carry/trial/lcab-measure kernel --impl lcab_flash \
         --mask sliding_window_causal,causal_document,full --seqlen 32k --heads 64 --kv-heads 8 --head-dim 128 --dtype bf16 \
         --pass bwd --warmup 2 --reps 5 --out "$O/measure-$d.jsonl" > /dev/null 2>> "$O/measure.err"; echo "measure $d rc=$? t=$(t)"
     done
     python3 scripts/kernel_breakdown.py "$O"/measure-*.jsonl --impl lcab_flash --pass bwd | tee "$O/breakdown.md" ;;
  3) # trial: as call 2's, with the dK/dV kernels at hd 64 and 128 launched at 160 registers (consumers 224) so that
     # the delta warp fits beside a CTA in a sub-partition's registers, and one release per run of 8 pieces.
     bash "$0" 2 ;;
  4) # trial: as call 3's, with each run's block id loaded once per run (not twice per piece from global memory)
     # and the piece handed to the sums through shared memory.
     bash "$0" 2 ;;
  *) echo "usage: $0 1..4" >&2; exit 2 ;;
esac
