#!/usr/bin/env bash
# One device call's A/B of kernel builds: GPU kernel tests of one build, SASS counts of each against the base, then
# lcab-kernel-bench rounds in rotating order and scripts/ab_compare.py per build against the base (per cycle: the
# records carry the SM clock). The measurement folders' device_call.sh of 2026-11-24 (fwd-item-stream and after)
# carry earlier inline versions of this body, as they ran; a new trial's call is one line:
#
#   bash scripts/ab_device_call.sh [--tests BUILD] BASE BUILD...      (run by the device tool, $OUT set)
#
# Each BUILD is a folder build-carry/BUILD/ holding lcab-kernel-bench (and lcab_kernel_tests for --tests), as they
# are, gzipped, or packed by `scripts/carry.sh pack build-carry/BUILD FILE...` (stripped and xz-compressed: about
# half the size, which the device tool's 64 MiB limit on the tree and carry together needs). Results go to $OUT/r, archived as $OUT/results.tgz on exit: device.txt, sass-counts-BUILD.txt, lcab_kernel_tests-BUILD.txt,
# ab-BUILD.jsonl, ab-summary-BUILD.txt. A build whose tests fail or hang is not timed (exit 1). Settings (env):
#   ROUNDS      rounds of the rotation (default 3)
#   PASS        fwd or bwd (default fwd)
#   IMPL        the implementation timed (default lcab_flash; lcab_flash_sm80 for the mma.sync path)
#   HEAD_DIMS   default "128 64 256"
#   MASKS_LONG  at SEQ_LONG (default 32k): causal_document,sliding_window_causal,block_causal_document,band1 (band1:
#               one whole 128 x 128 tile per q-tile row, all row cost; written to /tmp/masks)
#   MASKS_SHORT at SEQ_SHORT (default 16k): full,causal
#   MASKS_EXTRA at SEQ_EXTRA (both lists; default none): a third group, e.g. causal,sliding_window_causal at 1k,4k
#               (the measurement folders' bwd-front and bwd-idle-halves calls of 2026-11-24 ran such a group inline)
#   SASS_MATCH  functions for the SASS counts (default flash_forward_sm90)
#   TESTS_TIMEOUT  seconds for lcab_kernel_tests (default 200)
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tests_build=""
if [ "${1:-}" = "--tests" ]; then tests_build="$2"; shift 2; fi
if [ $# -lt 2 ]; then sed -n '2,20p' "$0" >&2; exit 2; fi
base="$1"
builds=("$@")
new=("${@:2}")
B=build-carry
# Every binary is checked before anything runs (a call that finds one missing costs nothing); packed is as good.
require() { [ -e "$1" ] || [ -e "$1.gz" ] || [ -e "$1.xz" ] || { echo "ab_device_call: $1 is missing" >&2; exit 2; }; }
for v in "${builds[@]}"; do require "$B/$v/lcab-kernel-bench"; done
[ -z "$tests_build" ] || require "$B/$tests_build/lcab_kernel_tests"
[ -z "${MASKS_EXTRA:-}" ] || [ -n "${SEQ_EXTRA:-}" ] || { echo "ab_device_call: MASKS_EXTRA needs SEQ_EXTRA" >&2; exit 2; }
# The GPU machine's environment, $O (archived on exit), t and device_info; it ends the call when OUT is not set.
source "$here/device_call_env.sh" || exit 2
for v in "${builds[@]}" ${tests_build:+"$tests_build"}; do bash "$here/carry.sh" unpack "$B/$v"; done
M=/tmp/masks; mkdir -p "$M"
device_info
if command -v /usr/local/cuda/bin/cuobjdump > /dev/null; then
  /usr/local/cuda/bin/cuobjdump -sass "$B/$base/lcab-kernel-bench" > /tmp/sass-base.txt
  for v in "${new[@]}"; do
    # A wrapper script (a build run with other settings) has no device code of its own to count.
    [ "$(head -c 4 "$B/$v/lcab-kernel-bench" | tail -c 3)" = "ELF" ] || { echo "$v: not a binary" > "$O/sass-counts-$v.txt"; continue; }
    /usr/local/cuda/bin/cuobjdump -sass "$B/$v/lcab-kernel-bench" |
      python3 "$here/sass_counts.py" --match "${SASS_MATCH:-flash_forward_sm90}" --regions --baseline /tmp/sass-base.txt \
      > "$O/sass-counts-$v.txt" 2>&1
  done
fi
if [ -n "$tests_build" ]; then
  timeout "${TESTS_TIMEOUT:-200}" "$B/$tests_build/lcab_kernel_tests" > "$O/lcab_kernel_tests-$tests_build.txt" 2>&1; rc=$?
  test_summary "$tests_build tests" $rc "$O/lcab_kernel_tests-$tests_build.txt"
  [ $rc = 0 ] || exit 1
fi
python3 - "$M" <<'PY'
import json, sys
S = 32768
slices = [[128 * a, 128 * a + 128, 128 * a, 128 * (a + 1), "full"] for a in range(S // 128)]
json.dump({"seqlen": S, "slices": slices}, open(f"{sys.argv[1]}/band1.json", "w"))
PY
long_masks="${MASKS_LONG:-causal_document,sliding_window_causal,block_causal_document,band1}"
long_masks="${long_masks//band1/file:$M/band1.json}"
# NAME MASKS SEQLENS: one lcab-kernel-bench run of build $v at head dim $hd, appended to ab-$v.jsonl.
bench() {
  timeout 200 "$B/$v/lcab-kernel-bench" --impl "${IMPL:-lcab_flash}" --mask "$2" --seqlen "$3" --head-dim "$hd" \
    --pass "${PASS:-fwd}" --warmup 3 --iters 10 --json "$O/ab-$v.jsonl" > /dev/null || echo "FAILED $v $hd $1"
}
n=${#builds[@]}
for ((round = 0; round < ${ROUNDS:-3}; ++round)); do
  for ((k = 0; k < n; ++k)); do
    v=${builds[$(( (round + k) % n ))]}
    for hd in ${HEAD_DIMS:-128 64 256}; do
      bench long "$long_masks" "${SEQ_LONG:-32k}"
      bench short "${MASKS_SHORT:-full,causal}" "${SEQ_SHORT:-16k}"
      [ -z "${MASKS_EXTRA:-}" ] || bench extra "$MASKS_EXTRA" "$SEQ_EXTRA"
    done
  done
  echo "round $((round + 1)) done t=$(t)"
done
for v in "${new[@]}"; do
  echo "== $v against $base"
  python3 "$here/ab_compare.py" --per-cycle "$O/ab-$base.jsonl" "$O/ab-$v.jsonl" | sed 's|file:/tmp/masks/||' | tee "$O/ab-summary-$v.txt"
done
