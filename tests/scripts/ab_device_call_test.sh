#!/usr/bin/env bash
# scripts/ab_device_call.sh checks every build's binaries (and OUT, and SEQ_EXTRA for MASKS_EXTRA) before it runs
# anything: a missing one ends the call at once with status 2, naming it, and nothing is measured or written.
set -u
script="$(cd "$(dirname "$0")/../.." && pwd)/scripts/ab_device_call.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
cd "$tmp"
mkdir -p build-carry/base build-carry/new out
for v in base new; do
  printf '#!/bin/sh\necho "ran $0" >> "%s/ran.txt"\n' "$tmp" > "build-carry/$v/lcab-kernel-bench"
done
run() { OUT="$tmp/out" bash "$script" "$@" > "$tmp/stdout" 2> "$tmp/stderr"; }
run base new other; rc=$?
[[ $rc == 2 ]] && grep -q "build-carry/other/lcab-kernel-bench is missing" "$tmp/stderr" || fail "missing build: rc $rc, $(cat "$tmp/stderr")"
run --tests new base new; rc=$?
[[ $rc == 2 ]] && grep -q "build-carry/new/lcab_kernel_tests is missing" "$tmp/stderr" || fail "missing tests: rc $rc, $(cat "$tmp/stderr")"
run base; rc=$?
[[ $rc == 2 ]] || fail "one build alone accepted: rc $rc"
MASKS_EXTRA=causal run base new; rc=$?
[[ $rc == 2 ]] && grep -q "MASKS_EXTRA needs SEQ_EXTRA" "$tmp/stderr" || fail "MASKS_EXTRA without SEQ_EXTRA: rc $rc"
OUT= bash "$script" base new > /dev/null 2> "$tmp/stderr"; rc=$?
[[ $rc == 2 ]] && grep -q "OUT is not set" "$tmp/stderr" || fail "OUT not checked: rc $rc"
[[ ! -e "$tmp/ran.txt" && -z "$(ls "$tmp/out")" ]] || fail "ran or wrote before the checks"
echo "ab_device_call: all checks passed"
