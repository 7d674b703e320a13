#!/usr/bin/env bash
# SASS on a machine without the toolkit's disassembler (the CPU machine's CUDA 13 has nvcc and ptxas, no cuobjdump
# or nvdisasm): a CUDA source file compiled for sm_90a with a build folder's compile line, or a cubin, disassembled
# by nvdisasm, in the format scripts/sass_counts.py reads.
#
#   scripts/disassemble.sh [--build DIR] FILE.cu|FILE.cubin > OUT.sass
#   scripts/sass_counts.py OUT.sass --match flash_forward_sm90 --regions [--baseline MAIN.sass]
#
# Which nvdisasm: $NVDISASM if set; the toolkit's own (/usr/local/cuda/bin) where it has one; otherwise CUDA 11.8's
# from Debian bookworm's non-free nvidia-cuda-toolkit package, fetched once with apt-get download (nothing is
# installed, the system's apt sources are not touched) into ${XDG_CACHE_HOME:-$HOME/.cache}/lcab/cuda-11.8. That
# older nvdisasm reads only the older cubin header, which scripts/cubin_abi7.py writes (the code bytes are the same).
# Checked against cuobjdump on the GPU machine (2026-11-24, the forward's kernels): the same HGMMA, R2UR and
# uniform-datapath counts per function; cuobjdump counts a few more instructions (its padding).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$here/../build"
if [ "${1:-}" = "--build" ]; then build="$2"; shift 2; fi
if [ $# -ne 1 ]; then sed -n '2,8p' "$0" >&2; exit 2; fi
input="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cubin="$input"
case "$input" in
  *.cu)
    # The kernels' own compile line from the build folder (defines, includes, flags), its targets replaced by one
    # sm_90a cubin, so that the SASS is the build's.
    target="$build/kernels/CMakeFiles/lcab_kernels.dir"
    [ -f "$target/flags.make" ] || { echo "disassemble.sh: no $target/flags.make (configure a build folder first, or pass --build DIR)" >&2; exit 2; }
    flags() { sed -n "s/^CUDA_$1 = //p" "$target/flags.make"; }
    compile_flags=()
    for flag in $(flags DEFINES) $(flags FLAGS); do
      case "$flag" in --generate-code=*|-gencode*|-Xcompiler=*) ;; *) compile_flags+=("$flag") ;; esac
    done
    cubin="$work/in.cubin"
    /usr/local/cuda/bin/nvcc "${compile_flags[@]}" --options-file "$target/includes_CUDA.rsp" \
      -gencode arch=compute_90a,code=sm_90a -cubin "$input" -o "$cubin"
    ;;
  *.cubin) ;;
  *) echo "disassemble.sh: $input is neither a .cu source nor a .cubin" >&2; exit 2 ;;
esac

nvdisasm="${NVDISASM:-}"
if [ -z "$nvdisasm" ] && [ -x /usr/local/cuda/bin/nvdisasm ]; then nvdisasm=/usr/local/cuda/bin/nvdisasm; fi
if [ -n "$nvdisasm" ]; then
  "$nvdisasm" "$cubin"
  exit 0
fi

cache="${XDG_CACHE_HOME:-$HOME/.cache}/lcab/cuda-11.8"
if [ ! -x "$cache/nvdisasm" ]; then
  echo "disassemble.sh: fetching nvdisasm (Debian bookworm non-free nvidia-cuda-toolkit, CUDA 11.8) into $cache" >&2
  mkdir -p "$work/lists/partial" "$work/archives/partial" "$cache"
  echo "deb http://deb.debian.org/debian bookworm non-free" > "$work/sources.list"
  apt_options=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
               -o "Dir::State::Lists=$work/lists" -o "Dir::Cache::Archives=$work/archives" -o Debug::NoLocking=1)
  apt-get "${apt_options[@]}" update -qq >&2
  (cd "$work" && apt-get "${apt_options[@]}" download nvidia-cuda-toolkit >&2)
  dpkg-deb -x "$work"/nvidia-cuda-toolkit_*.deb "$work/package"
  cp "$work/package/usr/bin/nvdisasm" "$cache/nvdisasm"
fi
python3 "$here/cubin_abi7.py" "$cubin" "$work/abi7.cubin"
"$cache/nvdisasm" "$work/abi7.cubin"
