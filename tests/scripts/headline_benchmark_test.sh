#!/usr/bin/env bash
# scripts/headline_benchmark.sh checks its binaries before it measures: a BUILD without lcab-predict (or
# lcab-measure) ends at once with status 2, naming the missing one, and writes no records.
set -u
script="$(dirname "$0")/../../scripts/headline_benchmark.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
mkdir -p "$tmp/build/apps"
printf '#!/bin/sh\necho "ran $0" >> "%s/ran.txt"\n' "$tmp" > "$tmp/build/apps/lcab-measure"
chmod +x "$tmp/build/apps/lcab-measure"
BUILD="$tmp/build" bash "$script" "$tmp/out" > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
[[ $rc == 2 ]] || fail "exit status $rc, expected 2: $(cat "$tmp/stderr")"
grep -q "apps/lcab-predict is missing" "$tmp/stderr" || fail "no message naming lcab-predict: $(cat "$tmp/stderr")"
[[ ! -e "$tmp/ran.txt" && ! -e "$tmp/out" ]] || fail "measured or wrote output before the check"
rm "$tmp/build/apps/lcab-measure"
BUILD="$tmp/build" bash "$script" "$tmp/out" > /dev/null 2> "$tmp/stderr"
[[ $? == 2 ]] && grep -q "apps/lcab-measure is missing" "$tmp/stderr" || fail "lcab-measure not checked"
echo "headline_benchmark: all checks passed"
