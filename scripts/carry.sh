#!/usr/bin/env bash
# Binaries for a device call, small enough to travel. The device tool sends the working tree (tracked and
# untracked-not-ignored files) and the carried folders together, at most 64 MiB on disk, and the measurement records
# already take most of that; a stripped, xz -9e compressed binary is about 45% smaller than a gzipped one
# (lcab-measure: 2.78 MB gzipped, 1.53 MB so).
#
#   scripts/carry.sh pack DIR FILE...   strip each ELF FILE (other files are copied as they are) and compress it to
#                                       DIR/NAME.xz; then print what would travel: the tree, DIR's parent carry
#                                       folder and the room left under the limit (exit 1 when over it)
#   scripts/carry.sh size [CARRY...]    print what would travel with the named carry folders
#   scripts/carry.sh unpack DIR...      on the device: decompress every NAME.xz and NAME.gz in each DIR to NAME and
#                                       make it executable (xz, else Python's lzma module)
#
# Stripping drops the host symbol tables only: the CUDA fatbins (and so cuobjdump -sass and the kernels' names in
# CUPTI's records) are data sections and stay.
set -euo pipefail
limit_kib=$((64 * 1024))
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

tree_kib() {  # KiB of the files the device tool sends from the repository: `tree_kib --apparent-size` counts their
              # bytes, `tree_kib` whole blocks, as a copy takes them (what the limit was seen to count)
  (cd "$repo" && { git ls-files -z; git ls-files -z --others --exclude-standard; } |
     xargs -0 du -k -c "$@" 2>/dev/null | awk '$2 == "total" { s += $1 } END { print s + 0 }')
}

report() {  # CARRY...: print the sizes and fail when over the limit
  local tree carry=0 c
  tree=$(tree_kib)
  for c in "$@"; do carry=$((carry + $(du -sk "$c" | cut -f1))); done
  local total=$((tree + carry))
  awk -v t="$tree" -v b="$(tree_kib --apparent-size)" -v c="$carry" -v l="$limit_kib" 'BEGIN {
    printf "travels: tree %.1f MiB (%.1f MiB of file bytes) + carry %.1f MiB = %.1f MiB of %d MiB; room %.1f MiB\n",
      t / 1024, b / 1024, c / 1024, (t + c) / 1024, l / 1024, (l - t - c) / 1024 }'
  [ "$total" -le "$limit_kib" ] || { echo "carry.sh: over the device tool's limit: carry less" >&2; return 1; }
}

cmd=${1:-}
case "$cmd" in
  pack)
    [ $# -ge 3 ] || { sed -n '7,14p' "$0" >&2; exit 2; }
    dir=$2; shift 2
    for f in "$@"; do [ -f "$f" ] || { echo "carry.sh: $f is not a file" >&2; exit 2; }; done
    mkdir -p "$dir"
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    for f in "$@"; do
      name=$(basename "$f")
      if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then strip -o "$tmp/$name" "$f"
      else cp "$f" "$tmp/$name"; fi
      xz -9e -T2 -c "$tmp/$name" > "$dir/$name.xz"
      printf '%s: %d -> %d bytes\n' "$dir/$name.xz" "$(stat -c %s "$f")" "$(stat -c %s "$dir/$name.xz")"
    done
    report "$dir"
    ;;
  size)
    shift
    report "$@"
    ;;
  unpack)
    [ $# -ge 2 ] || { sed -n '7,14p' "$0" >&2; exit 2; }
    shift
    for dir in "$@"; do
      [ -d "$dir" ] || { echo "carry.sh: $dir is not a folder" >&2; exit 2; }
      for f in "$dir"/*.xz "$dir"/*.gz; do
        [ -e "$f" ] || continue
        case "$f" in
          *.xz) xz -d -f "$f" 2> /dev/null ||
                  python3 -c 'import lzma, os, sys; open(sys.argv[1][:-3], "wb").write(lzma.open(sys.argv[1]).read()); os.remove(sys.argv[1])' "$f" ;;
          *.gz) gunzip -f "$f" ;;
        esac
      done
      chmod +x "$dir"/*
    done
    ;;
  *) sed -n '7,14p' "$0" >&2; exit 2 ;;
esac
