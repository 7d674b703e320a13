#!/usr/bin/env bash
# scripts/device_call_env.sh: refuses to run without OUT; sets the GPU machine's environment and $O; test_summary
# reads a GoogleTest log; flash_sweep runs lcab-measure over the profiles' grid (a stand-in binary records its
# arguments); the results folder is archived and removed on exit, each process's archive kept.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
helper="$here/../../scripts/device_call_env.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

# Without OUT: an error, nothing created, and a script sourcing it as documented stops there.
out=$(env -u OUT bash -c "source '$helper' || exit 2; echo went on" 2>&1); rc=$?
[[ $rc == 2 && "$out" == *"OUT is not set"* && "$out" != *"went on"* ]] || fail "sourced without OUT: rc $rc, $out"

export OUT="$work/out"
cat > "$work/fake-measure" <<'EOF'
#!/usr/bin/env bash
echo "$@" > "$FAKE_ARGS"
for n in 1 2 3; do echo '{}' >> "${@: -1}"; done
EOF
chmod +x "$work/fake-measure"
cat > "$work/gtest.log" <<'EOF'
[  SKIPPED ] Methods/Cp.Runs/ring_p2 (0 ms)
[  FAILED  ] Suite.Case (3 ms)
[  PASSED  ] 16 tests.
[  SKIPPED ] 35 tests, listed below:
[  SKIPPED ] Methods/Cp.Runs/ring_p2
[  FAILED  ] 1 test, listed below:
[  FAILED  ] Suite.Case
EOF
result=$(FAKE_ARGS="$work/args" bash -c "
  source '$helper'
  echo \"nvls=\$NCCL_NVLS_ENABLE O=\$O\"
  [[ \"\$LD_LIBRARY_PATH\" == /usr/local/cuda/targets/x86_64-linux/lib:* ]] && echo ld=ok
  test_summary cp 1 '$work/gtest.log'
  flash_sweep '$work/fake-measure' bwd 64,128 \"\$O/sweep.jsonl\" 30
")
[[ "$result" == *"nvls=0 O=$OUT/r"* ]] || fail "environment: $result"
[[ "$result" == *"ld=ok"* ]] || fail "LD_LIBRARY_PATH: $result"
# The counts on one line (not every skipped test's line), then the failed tests.
summary="cp rc=1 [  PASSED  ] 16 tests. [  SKIPPED ] 35 tests, listed below: [  FAILED  ] 1 test, listed below:  t="
[[ "$result" == *"$summary"* ]] || fail "test summary: $result"
[[ "$result" != *"ring_p2"* ]] || fail "skipped tests listed: $result"
[[ "$result" == *$'\n'"[  FAILED  ] Suite.Case"* ]] || fail "failures not listed: $result"
[[ "$result" == *"bwd sweep hd 64,128 rc=0 points=3"* ]] || fail "sweep line: $result"
args=$(cat "$work/args")
for want in "kernel --impl lcab_flash" "--seqlen 1k,2k,4k,8k,16k,32k" "--kv-heads 8,64" "--head-dim 64,128" \
            "--pass bwd" "--warmup 2 --reps 5" "variable_block_sparse" "sliding_window_causal,global_sliding_window"; do
  [[ "$args" == *"$want"* ]] || fail "lcab-measure's arguments lack '$want': $args"
done
[ "$(echo "$args" | tr ',' '\n' | grep -c .)" -ge 16 ] || fail "fewer than 16 masks: $args"
# SEQLENS given: those lengths alone.
FAKE_ARGS="$work/args64" bash -c \
  "source '$helper' > /dev/null; flash_sweep '$work/fake-measure' bwd 128 \"\$O/sweep64.jsonl\" 30 64k" > /dev/null
grep -q -- "--seqlen 64k --heads" "$work/args64" || fail "SEQLENS not passed on: $(cat "$work/args64")"
# gpu_test_suites: each of the three suites run and summarized; a failing or missing one makes it return 1.
mkdir -p "$work/suites"
for s in lcab_kernel_tests lcab_measure_tests; do
  printf '#!/usr/bin/env bash\necho "[  PASSED  ] 7 tests."\n' > "$work/suites/$s"; chmod +x "$work/suites/$s"
done
suites=$(bash -c "source '$helper' > /dev/null; gpu_test_suites '$work/suites' 10; echo \"returned \$?\"")
[[ "$suites" == *"lcab_kernel_tests rc=0 [  PASSED  ] 7 tests."* ]] || fail "kernel suite: $suites"
[[ "$suites" == *"lcab_measure_tests rc=0 [  PASSED  ] 7 tests."* ]] || fail "measure suite: $suites"
[[ "$suites" == *"lcab_cp_tests rc=127"* && "$suites" == *$'\n'"returned 1" ]] ||
  fail "missing cp suite not reported: $suites"
printf '#!/usr/bin/env bash\necho "[  PASSED  ] 3 tests."\n' > "$work/suites/lcab_cp_tests"
chmod +x "$work/suites/lcab_cp_tests"
suites=$(bash -c "source '$helper' > /dev/null; gpu_test_suites '$work/suites' 10; echo \"returned \$?\"")
[[ "$suites" == *"lcab_cp_tests rc=0 [  PASSED  ] 3 tests."* && "$suites" == *$'\n'"returned 0" ]] ||
  fail "all passing: $suites"
# On exit each process archives $O and removes it: the first as results.tgz, later ones of the same OUT beside it.
[ ! -e "$OUT/r" ] || fail "the results folder is left beside its archive"
[ -f "$OUT/results.tgz" ] || fail "no archive on exit"
tar tzf "$OUT/results.tgz" | grep -q "r/sweep.jsonl" || fail "the archive lacks the results"
kept=0
for archive in "$OUT"/results-*.tgz; do
  tar xzOf "$archive" r/lcab_cp_tests.txt 2> /dev/null | grep -q "3 tests" && kept=1
done
[ "$kept" = 1 ] || fail "a later process's suite log is in no archive of its own: $(ls "$OUT")"
echo "device_call_env: all checks passed"
