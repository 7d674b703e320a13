#!/usr/bin/env bash
# lcab_flash_sm80's H200 profile entries against this folder's records of the current mma.sync kernels, before and
# after the datasheet layer took its H200 figures from final/lcab-measure.jsonl (2026-12-04), on this (CPU) machine
# from the repository root. The forward's records are the adopted build's of
# ../../sm80-chunk-pair-addresses-2026-12-03/fwd/ (71683ef, SASS-identical to main's forward since fcfca4b).
#   bash data/measurements/h200/sm80-bwd-hd64-128-queries-2026-12-04/datasheet/check.sh BEFORE_PROFILE AFTER_PROFILE
# (BEFORE_PROFILE: e.g. `git show 45a6d9a:data/profiles/h200_sxm.json > /tmp/h200_before.json`; AFTER_PROFILE: h200_sxm)
set -euo pipefail
D=data/measurements/h200/sm80-bwd-hd64-128-queries-2026-12-04
# The A/B records name the band1 mask by the file ab_device_call.sh writes on the GPU machine.
mkdir -p /tmp/masks
python3 -c "
import json
S = 32768
slices = [[128 * a, 128 * a + 128, 128 * a, 128 * (a + 1), 'full'] for a in range(S // 128)]
json.dump({'seqlen': S, 'slices': slices}, open('/tmp/masks/band1.json', 'w'))"
for which in before after; do
  profile=$1; [ "$which" = after ] && profile=$2
  build/apps/lcab-check --profile "$profile" --in $D/final/ab/ab-final.jsonl > $D/datasheet/bwd-$which.md
  build/apps/lcab-check --profile "$profile" --in data/measurements/h200/sm80-chunk-pair-addresses-2026-12-03/fwd/ab-cand.jsonl \
    > $D/datasheet/fwd-$which.md
done
tail -n 1 $D/datasheet/{bwd,fwd}-{before,after}.md
