#!/usr/bin/env bash
# scripts/carry.sh: a packed ELF binary (stripped, xz-compressed) and a packed text file unpack to a binary that runs
# and a byte-identical file; pack and unpack refuse missing inputs with status 2 before writing anything.
set -u
script="$(cd "$(dirname "$0")/../.." && pwd)/scripts/carry.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
command -v xz > /dev/null && command -v strip > /dev/null || { echo "no xz or strip: skipped"; exit 0; }
printf 'int main(int c, char** v) { (void)v; return c == 2 ? 7 : 0; }\n' > "$tmp/tool.c"
cc -O1 -g -o "$tmp/tool" "$tmp/tool.c" || fail "cannot compile the sample binary"
printf 'not a binary\n' > "$tmp/notes.txt"
bash "$script" pack "$tmp/carry" "$tmp/tool" "$tmp/notes.txt" > "$tmp/pack.out" 2>&1 || fail "pack: $(cat "$tmp/pack.out")"
[[ -e "$tmp/carry/tool.xz" && -e "$tmp/carry/notes.txt.xz" ]] || fail "pack wrote $(ls "$tmp/carry")"
grep -q "^travels: tree .* MiB of 64 MiB; room" "$tmp/pack.out" || fail "no size report: $(cat "$tmp/pack.out")"
bash "$script" unpack "$tmp/carry" || fail "unpack failed"
[[ ! -e "$tmp/carry/tool.xz" ]] || fail "unpack left the compressed file"
"$tmp/carry/tool" x; [[ $? == 7 ]] || fail "the unpacked binary does not behave like the original"
cmp -s "$tmp/notes.txt" "$tmp/carry/notes.txt" || fail "the text file changed"
[[ $(stat -c %s "$tmp/carry/tool") -lt $(stat -c %s "$tmp/tool") ]] || fail "the binary was not stripped"
bash "$script" pack "$tmp/out2" "$tmp/tool" "$tmp/missing" > /dev/null 2>&1; rc=$?
[[ $rc == 2 && ! -e "$tmp/out2" ]] || fail "a missing file: rc $rc, wrote $(ls "$tmp/out2" 2>&1)"
bash "$script" unpack "$tmp/nowhere" > /dev/null 2>&1; rc=$?
[[ $rc == 2 ]] || fail "a missing folder: rc $rc"
echo "carry: all checks passed"
