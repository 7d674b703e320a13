#!/usr/bin/env bash
# cmake/write_version.cmake names the revision a build comes from: in a scratch git repository, the header carries
# HEAD's 12-digit revision, "-dirty" once a tracked file differs from HEAD, the new revision after a commit, and
# "unknown" outside a repository; an unchanged revision leaves the header's timestamp alone (no needless rebuilds).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
script="$here/../../cmake/write_version.cmake"
input="$here/../../model/version.h.in"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
write() { cmake -DSOURCE_DIR="$1" -DINPUT="$input" -DOUT="$tmp/version.h" -DPROJECT_VERSION=9.9.9 -P "$script" ||
  fail "the script failed"; }
sha_in_header() { sed -n 's/.*kLcabGitSha = "\(.*\)";/\1/p' "$tmp/version.h"; }

repo="$tmp/repo"
mkdir -p "$repo"
git -C "$repo" init -q
git -C "$repo" -c user.name=t -c user.email=t@t commit -q --allow-empty -m first
echo a > "$repo/file.txt"
git -C "$repo" add file.txt
git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m second
head=$(git -C "$repo" rev-parse --short=12 HEAD)
write "$repo"
[[ "$(sha_in_header)" == "$head" ]] || fail "clean tree: got '$(sha_in_header)', expected '$head'"
grep -q 'kLcabVersion = "9.9.9"' "$tmp/version.h" || fail "the version is not in the header"

touch -d '2000-01-01' "$tmp/version.h"
write "$repo"
[[ "$(stat -c %Y "$tmp/version.h")" == "$(date -d '2000-01-01' +%s)" ]] || fail "an unchanged header was rewritten"

echo b > "$repo/file.txt"
write "$repo"
[[ "$(sha_in_header)" == "$head-dirty" ]] || fail "edited tree: got '$(sha_in_header)', expected '$head-dirty'"

git -C "$repo" -c user.name=t -c user.email=t@t commit -q -am third
next=$(git -C "$repo" rev-parse --short=12 HEAD)
write "$repo"
[[ "$(sha_in_header)" == "$next" && "$next" != "$head" ]] || fail "after a commit: got '$(sha_in_header)', expected '$next'"

mkdir -p "$tmp/not-a-repo"
GIT_CEILING_DIRECTORIES="$tmp" write "$tmp/not-a-repo"
[[ "$(sha_in_header)" == "unknown" ]] || fail "outside a repository: got '$(sha_in_header)'"
echo "write_version: all checks passed"
