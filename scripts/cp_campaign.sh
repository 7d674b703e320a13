#!/usr/bin/env bash
# One list of CP configurations for a P-GPU campaign (issue 10), used twice: `predict` writes lcab-predict's
# records before anything is measured; `measure` runs lcab-measure comm and cp on the GPUs for the same list.
#
#   scripts/cp_campaign.sh predict LCAB_PREDICT PROFILE OUT.jsonl
#   scripts/cp_campaign.sh measure LCAB_MEASURE OUTDIR
# Environment: P (GPUs, default 4), HEADS/KV_HEADS (32/4: GQA 8 as 64/8), SEQLENS (8K x P and 32K x P),
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

# method | extra options; every method, degrees and placement valid at P = 4 (degenerate usp U1/U4 are ring and
# ulysses themselves and are not repeated).
configs=(
  "ring|"
  "allgather|"
  "ulysses|"
  "usp|--ulysses 2 --ring 2 --placement ulysses_intra"
  "usp|--ulysses 2 --ring 2 --placement ring_intra"
  "loongtrain|--ulysses 1 --ring 4 --windows 2"
  "loongtrain|--ulysses 2 --ring 2 --windows 2 --placement ulysses_intra"
  "loongtrain|--ulysses 2 --ring 2 --windows 2 --placement ring_intra"
)

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
      "$measure" cp --method "$method" $extra "${common[@]}" --warmup 1 --reps 3 --out "$outdir/cp.jsonl" || true
    done
    ;;
  *) echo "usage: $0 predict|measure ..." >&2; exit 2 ;;
esac
