# What every device call's script repeated (sourced, not run): the GPU machine's environment, the results folder, its
# archive on exit, and one-line summaries. The measurement folders' device_call.sh files up to 2026-11-24 carry
# this inline, as they ran; a new call's script is
#
#   source scripts/device_call_env.sh || exit 2  (the device tool sets $OUT; without it the source fails)
#   device_info                                  (nvidia-smi's line per GPU -> $O/device.txt)
#   timeout 200 BIN/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1; test_summary kernel $? $O/lcab_kernel_tests.txt
#   flash_sweep BIN/lcab-measure bwd 64,128 $O/lcab-measure-kernel-bwd-DATE.jsonl 150
#
# or, for main's GPU tests alone, `gpu_test_suites BIN`, for the headline run (the tests, then the benchmark
# with the PyTorch peers) `headline_call CARRY_DIR` (the headline folders up to 2026-12-03-chunk-waits carry that
# call inline, as they ran), and for the mma.sync path beside FlashAttention-2 `sm80_vs_fa2 CARRY_DIR`.
#
# It sets NCCL_NVLS_ENABLE=0 (NVLink multicast can take the shared host out of service) and LD_LIBRARY_PATH (the
# machines' NCCL, cuDNN and CUPTI), O=$OUT/r and T0; on exit archives $O as $OUT/results.tgz and removes it, so that
# the call returns its archive and nothing else (the device tool returns at most 8 files and picks which: on
# 2026-12-03 the loose files of three folders crowded out two of their archives, and a call had to run again). A
# second process of the same call that sources this file with the same OUT writes $OUT/results-PID.tgz.
if [ -z "${OUT:-}" ]; then
  echo "device_call_env.sh: OUT is not set (the device tool sets it)" >&2
  return 2 2> /dev/null || exit 2
fi
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r
mkdir -p "$O"
T0=$(date +%s)
device_call_archive() {
  local archive="$OUT/results.tgz"
  [ ! -e "$archive" ] || archive="$OUT/results-$$.tgz"
  tar czf "$archive" -C "$OUT" r && rm -rf "$O"
}
trap device_call_archive EXIT

# Seconds since the call began.
t() { echo $(( $(date +%s) - T0 )); }

# nvidia-smi's line per GPU, shown and kept in $O/device.txt.
device_info() {
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,power.limit --format=csv | tee "$O/device.txt"
}

# NAME RC LOG: one line for a GoogleTest binary's run (its PASSED / SKIPPED / FAILED counts), then its failures.
test_summary() {
  echo "$1 rc=$2 $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$3" | tr '\n' ' ') t=$(t)"
  grep -E '^\[  FAILED  \] [A-Za-z]|Failure' "$3" | head -10
}

# LCAB_MEASURE PASS HEAD_DIMS FILE SECONDS [SEQLENS]: lcab_flash over every registered mask x SEQLENS (default
# 1k,2k,4k,8k,16k,32k; the 64K points of the profiles are `64k`) x 64/8 and 64/64 heads, bf16, 2 warm-up and 5 timed
# repetitions (the profiles' sweeps), appended to FILE, at most SECONDS. The 64K calls of 2026-11-25 carry a copy of
# the mask list inline, as they ran.
flash_sweep() {
  local masks=full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window
  masks=$masks,sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal
  masks=$masks,prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse
  timeout "$5" "$1" kernel --impl lcab_flash --mask "$masks" --seqlen "${6:-1k,2k,4k,8k,16k,32k}" --heads 64 \
    --kv-heads 8,64 --head-dim "$3" --dtype bf16 --pass "$2" --warmup 2 --reps 5 --out "$4" \
    > /dev/null 2>> "$O/sweep-$2.err"
  local rc=$?
  echo "$2 sweep hd $3 rc=$rc points=$(wc -l < "$4") t=$(t)"
  return $rc
}

# DIR [SECONDS]: main's three GPU test suites (lcab_kernel_tests, lcab_measure_tests, lcab_cp_tests) from the carry
# folder DIR, each at most SECONDS (default 150), each log in $O/SUITE.txt and summarized by test_summary. Returns 1
# when a suite fails or is missing (the others still run), 0 otherwise.
gpu_test_suites() {
  local suite rc=0 one
  for suite in lcab_kernel_tests lcab_measure_tests lcab_cp_tests; do
    if [ -x "$1/$suite" ]; then
      timeout "${2:-150}" "$1/$suite" > "$O/$suite.txt" 2>&1
      one=$?
    else
      echo "$1/$suite: not found" > "$O/$suite.txt"
      one=127
    fi
    test_summary "$suite" "$one" "$O/$suite.txt"
    [ "$one" = 0 ] || rc=1
  done
  return $rc
}

# DIR: the headline call of issues 3 and 4 with the binaries of carry folder DIR (lcab-measure, lcab-predict and
# the three suites, as NAME.xz): unpacks them, device_info, gpu_test_suites, then scripts/headline_benchmark.sh into
# $O/headline/ (its tables in $O/headline.md, progress in $O/headline.err), within 580 s of the call's start.
headline_call() {
  bash "$(dirname "${BASH_SOURCE[0]}")/carry.sh" unpack "$1" || return 2
  mkdir -p "$1/apps" && ln -sf ../lcab-measure "$1/apps/lcab-measure" && ln -sf ../lcab-predict "$1/apps/lcab-predict"
  device_info
  gpu_test_suites "$1"
  BUILD="$1" timeout $(( 580 - $(t) )) "$(dirname "${BASH_SOURCE[0]}")/headline_benchmark.sh" "$O/headline" \
    > "$O/headline.md" 2> "$O/headline.err"
  local rc=$?
  echo "headline rc=$rc t=$(t)"
  cat "$O/headline.md"
  return $rc
}

# DIR [HEAD_DIMS]: lcab_flash_sm80 and lcab_flash (lcab-measure from the carry folder DIR) beside PyTorch SDPA's
# FlashAttention-2 (measure/peers/torch_peers.py) in the same call: bf16, 64 / 8 heads, full and causal at 16K, fwd
# and bwd, 3 warm-ups and 7 repetitions, at each of HEAD_DIMS (default "128 64"); records in $O/lcab-measure.jsonl and
# $O/torch-peers.jsonl, one line per point in $O/summary.txt (impl, mask, seqlen, head dim, pass, status, TFLOP/s, SM
# MHz). The mma.sync path's side-by-side calls up to sm80-bwd-hd64-128-queries-2026-12-04 carry this inline, as they
# ran.
sm80_vs_fa2() {
  local hd shape=(--heads 64 --kv-heads 8 --pass fwd,bwd --warmup 3 --reps 7)
  for hd in ${2:-128 64}; do
    "$1/lcab-measure" kernel --impl lcab_flash_sm80,lcab_flash --mask full,causal --seqlen 16k --dtype bf16 \
      --head-dim "$hd" "${shape[@]}" --out "$O/lcab-measure.jsonl" > /dev/null 2>> "$O/measure.err"
    python3 measure/peers/torch_peers.py --impl torch_sdpa_flash --mask full,causal --seqlen 16k --head-dim "$hd" \
      "${shape[@]}" --max-dense-mask-bytes 0 --lcab-predict "$1/lcab-predict" --out "$O/torch-peers.jsonl" \
      > /dev/null 2>> "$O/peers.err"
    echo "timed hd $hd t=$(t)"
  done
  python3 - "$O/lcab-measure.jsonl" "$O/torch-peers.jsonl" <<'PY' | tee "$O/summary.txt"
import json, sys
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line); k = r["key"]
        print(k.get("impl"), k.get("mask"), k.get("seqlen"), k.get("head_dim"), k.get("pass"), r.get("status"),
              round(r.get("tflops", 0) or 0, 1), round((r.get("sm_clock_mhz") or {}).get("median") or 0))
PY
}
