#!/usr/bin/env bash
# One list of CP configurations for a P-GPU campaign (issue 10), used twice: `predict` writes lcab-predict's
# records before anything is measured; `measure` runs lcab-measure comm and cp on the GPUs for the same list.
#
#   scripts/cp_campaign.sh predict LCAB_PREDICT PROFILE OUT.jsonl
#   scripts/cp_campaign.sh measure LCAB_MEASURE OUTDIR
# Environment: P (GPUs: 2 or 4, default 4), HEADS/KV_HEADS (32/4: GQA 8 as 64/8), SEQLENS (8K x P and 32K x P),
# MASKS (full, causal, causal_document, causal_document_long).
set -euo pipefail
mode=$1
P=${P:-4}
HEADS=${HEADS:-32}
KV_HEADS=${KV_HEADS:-4}
SEQLENS=${SEQLENS:-$((8 * P))k,$((32 * P))k}
MASKS=${MASKS:-full,causal,causal_document,causal_document_long}
common=(--mask "$MASKS" --seqlen "$SEQLENS" --pass fwd,bwd --heads "$HEADS" --kv-heads "$KV_HEADS" --head-dim 128
        --gpus "$P" --gpus-per-node "$P")

# method | extra options; every method, degrees and placement valid at P (degenerate usp/loongtrain that equal
# ring or ulysses are not repeated). P = 2 and P = 4 are spelled out.
case "$P" in
  2) configs=(
       "ring|"
       "allgather|"
       "ulysses|"
       "loongtrain|--ulysses 1 --ring 2 --windows 2"
     ) ;;
  4) configs=(
       "ring|"
       "allgather|"
       "ulysses|"
       "usp|--ulysses 2 --ring 2 --placement ulysses_intra"
       "usp|--ulysses 2 --ring 2 --placement ring_intra"
       "loongtrain|--ulysses 1 --ring 4 --windows 2"
       "loongtrain|--ulysses 2 --ring 2 --windows 2 --placement ulysses_intra"
       "loongtrain|--ulysses 2 --ring 2 --windows 2 --placement ring_intra"
     ) ;;
  *) echo "cp_campaign.sh: P=$P has no configuration list; valid: 2, 4" >&2; exit 2 ;;
esac
# BASELINE=1 adds single-GPU lcab_flash records of the whole sequence (kernel calibration) to the first config.
baseline=()
[[ "${BASELINE:-0}" == 1 ]] && baseline=(--baseline)

case "$mode" in
  predict)
    predict=$2 profile=$3 out=$4
    for c in "${configs[@]}"; do
      method=${c%%|*} extra=${c#*|}
      # shellcheck disable=SC2086
      "$predict" cp --method "$method" $extra "${common[@]}" --profile "$profile" --json "$out" >/dev/null
    done
    ;;
  measure)
    measure=$2 outdir=$3
    "$measure" comm -b 1M -e 256M -f 4 --group world,contiguous:2,strided:2 -n 10 -w 3 --out "$outdir/comm.jsonl"
    for c in "${configs[@]}"; do
      method=${c%%|*} extra=${c#*|}
      # shellcheck disable=SC2086
      "$measure" cp --method "$method" $extra "${common[@]}" "${baseline[@]}" --warmup 1 --reps 3 \
        --out "$outdir/cp.jsonl" || true
      baseline=()
    done
    ;;
  *) echo "usage: $0 predict|measure ..." >&2; exit 2 ;;
esac
