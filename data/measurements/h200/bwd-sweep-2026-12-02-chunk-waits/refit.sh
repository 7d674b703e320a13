#!/usr/bin/env bash
# The refit after the per-chunk conversion waits, on this (CPU) machine, from the repository root: the committed H200
# profiles checked against the new backward records (before), both refitted by their provenance.inputs with the two
# new files appended, from the datasheet base (the paired-model one with grid_paired_documents), then held out.
#   bash data/measurements/h200/bwd-sweep-2026-12-02-chunk-waits/refit.sh [fit|holdout]
set -euo pipefail
D=data/measurements/h200/bwd-sweep-2026-12-02-chunk-waits
NEW="data/measurements/h200/lcab-measure-kernel-bwd-chunk-waits-2026-12-02.jsonl.gz data/measurements/h200/lcab-measure-kernel-bwd-64k-chunk-waits-2026-12-02.jsonl.gz"
sed 's/"grid_long_items_first"/"grid_paired_documents"/' data/profiles/h200_sxm.datasheet.json > /tmp/h200_paired_base.json
inputs() { python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['provenance']['inputs']))" "$1"; }
case "${1:-fit}" in
  fit)
    for p in calibrated paired-model.calibrated; do
      build/apps/lcab-check --profile data/profiles/h200_sxm.$p.json --in $NEW --calibrated-only \
        > $D/lcab-check-before-${p%.calibrated}.md || true
    done
    build/apps/lcab-calibrate --in $(inputs data/profiles/h200_sxm.calibrated.json) $NEW \
      --base data/profiles/h200_sxm.datasheet.json --name h200_sxm.calibrated \
      --out data/profiles/h200_sxm.calibrated.json --allow-unfitted > $D/fit-calibrated.md &
    build/apps/lcab-calibrate --in $(inputs data/profiles/h200_sxm.paired-model.calibrated.json) $NEW \
      --base /tmp/h200_paired_base.json --name h200_sxm.paired-model.calibrated \
      --out data/profiles/h200_sxm.paired-model.calibrated.json --allow-unfitted > $D/fit-paired-model.md &
    wait
    python3 model/perf/derive_datasheet_profiles.py
    ;;
  holdout)
    build/apps/lcab-calibrate --in $(inputs data/profiles/h200_sxm.calibrated.json) \
      --base data/profiles/h200_sxm.datasheet.json --name h200_sxm.calibrated \
      --out /tmp/holdout-calibrated.json --allow-unfitted --holdout kfold > $D/holdout-calibrated.md &
    build/apps/lcab-calibrate --in $(inputs data/profiles/h200_sxm.paired-model.calibrated.json) \
      --base /tmp/h200_paired_base.json --name h200_sxm.paired-model.calibrated \
      --out /tmp/holdout-paired-model.json --allow-unfitted --holdout kfold > $D/holdout-paired-model.md &
    wait
    ;;
esac
