#!/bin/sh
# CI regression check: every calibrated profile committed under data/profiles/ must still predict the committed
# measurements it was fitted on (its provenance.inputs, relative to the source tree): each fitted group's MAPE may
# not exceed the MAPE recorded at calibration by more than MARGIN percentage points (a change to the model or to
# the measurements that breaks their agreement fails). Exits 77 (ctest: skipped) while no calibrated profile is
# committed.
# usage: check_committed_measurements.sh LCAB_CHECK SOURCE_DIR MARGIN
set -eu
check=$1
source_dir=$2
margin=$3
found=0
status=0
for profile in "$source_dir"/data/profiles/*.calibrated.json; do
  [ -e "$profile" ] || continue
  found=1
  echo "== $profile"
  "$check" --profile "$profile" --inputs-from-profile --root "$source_dir" --calibrated-only \
    --regression-margin "$margin" --summary-only ||
    status=1
done
if [ "$found" = 0 ]; then
  echo "no data/profiles/*.calibrated.json committed yet: nothing to check"
  exit 77
fi
exit "$status"
