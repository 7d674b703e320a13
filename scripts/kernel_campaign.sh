#!/usr/bin/env bash
# The single-GPU kernel campaign of issue 5: every attention implementation available on the GPU (lcab's own
# through lcab-measure, PyTorch's through measure/peers/torch_peers.py) x every mask pattern x sequence lengths x
# fwd/bwd x head dims x GQA/MHA, written as JSON Lines records (one file per part, appended; a rerun with the same
# OUTDIR skips every point already recorded, so a part cut off by a time limit resumes where it stopped).
#
#   scripts/kernel_campaign.sh PART OUTDIR
# PART: ours | sm80 | sdpa | flex (each fits one 10-minute device call on an H100). Environment: BUILD (folder
# with apps/lcab-measure and apps/lcab-predict, default build), SEQLENS (default 1k..64k), FLEX_SEQLENS (4k,16k,32k),
# FLEX_KV_HEADS (8), FLEX_HEAD_DIMS (128), SM80_HEAD_DIMS (128,64), REPS (5), WARMUP (2), SKIP_RECORDED_IN (files whose points the peers
# parts skip, e.g. the committed measurements, so that a new OUTDIR holds only what they lacked).
set -uo pipefail
part=${1:?part: ours, sm80, sdpa or flex}
out=${2:?output directory}
build=${BUILD:-build}
seqlens=${SEQLENS:-1k,2k,4k,8k,16k,32k,64k}
reps=${REPS:-5}
warmup=${WARMUP:-2}
mkdir -p "$out"
export PATH="$PWD/$build/apps:$PATH"  # the peers script finds lcab-predict here
# Every registered pattern with its default parameters (lcab-predict mask lists them in the README).
all_masks="full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,\
sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,\
block_causal_document,block_sparse,variable_block_sparse"
shape=(--heads 64 --kv-heads 8,64 --head-dim 128,64 --dtype bf16 --pass fwd,bwd)
skip=()
[[ -n "${SKIP_RECORDED_IN:-}" ]] && read -r -a files <<<"$SKIP_RECORDED_IN" && skip=(--skip-recorded-in "${files[@]}")

case "$part" in
  ours)  # lcab_flash (Hopper path on sm_90), cuDNN through its backend graph API, the naive reference
    "$build/apps/lcab-measure" kernel --impl lcab_flash,cudnn,naive --mask "$all_masks" --seqlen "$seqlens" \
      "${shape[@]}" --warmup "$warmup" --reps "$reps" --out "$out/lcab-measure-kernel.jsonl" ;;
  sm80)  # lcab_flash's mma.sync path on the same GPU, GQA, SM80_HEAD_DIMS (default 128,64)
    "$build/apps/lcab-measure" kernel --impl lcab_flash_sm80 --mask "$all_masks" --seqlen "$seqlens" \
      --heads 64 --kv-heads 8 --head-dim "${SM80_HEAD_DIMS:-128,64}" --dtype bf16 --pass fwd,bwd --warmup "$warmup" --reps "$reps" \
      --out "$out/lcab-measure-kernel-sm80.jsonl" ;;
  sdpa)  # SDPA's backends: full and causal natively at every length; every other mask as a dense boolean mask
         # up to 16K (256 MiB; longer ones are recorded "unsupported": the dense kernels compute every tile, so
         # their time does not depend on the mask, and a 64K point takes minutes); the flash backend takes no mask
    python3 measure/peers/torch_peers.py --impl torch_sdpa_flash,torch_sdpa_cudnn,torch_sdpa_efficient \
      --mask full,causal --seqlen "$seqlens" --pass fwd,bwd --heads 64 --kv-heads 8,64 --head-dim 128,64 \
      --warmup "$warmup" --reps "$reps" "${skip[@]}" --out "$out/torch-peers-sdpa.jsonl"
    python3 measure/peers/torch_peers.py --impl torch_sdpa_efficient,torch_sdpa_cudnn,torch_sdpa_flash \
      --mask "${all_masks#full,causal,}" --seqlen "$seqlens" "${shape[@]}" --warmup "$warmup" --reps "$reps" \
      --max-dense-mask-bytes 268435456 "${skip[@]}" --out "$out/torch-peers-sdpa.jsonl" ;;
  flex)  # FlexAttention (one compilation per point): every pattern at FLEX_SEQLENS (4K, 16K, 32K), FLEX_KV_HEADS
         # (8) and FLEX_HEAD_DIMS (128)
    python3 measure/peers/torch_peers.py --impl torch_flex --mask "$all_masks" --seqlen "${FLEX_SEQLENS:-4k,16k,32k}" \
      --pass fwd,bwd --heads 64 --kv-heads "${FLEX_KV_HEADS:-8}" --head-dim "${FLEX_HEAD_DIMS:-128}" \
      --warmup "$warmup" --reps "$reps" "${skip[@]}" --out "$out/torch-peers-flex.jsonl" ;;
  *) echo "kernel_campaign.sh: unknown part '$part'; valid: ours, sm80, sdpa, flex" >&2; exit 2 ;;
esac
