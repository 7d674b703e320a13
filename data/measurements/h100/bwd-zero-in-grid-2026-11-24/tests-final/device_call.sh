#!/usr/bin/env bash
# GPU tests of main's final binaries (the memset kept, LCAB_FLASH_POISON_WORKSPACE set by the tests), and the poison
# check's control: the same tests with the Hopper path's memset compiled out (build-carry/poison-nomemset), which must
# fail on the first backward's dq, not only the second's.
source scripts/device_call_env.sh || exit 2
bash scripts/carry.sh unpack build-carry/poison-final build-carry/poison-nomemset
device_info
timeout 250 build-carry/poison-final/lcab_kernel_tests > "$O/lcab_kernel_tests-final.txt" 2>&1
test_summary final $? "$O/lcab_kernel_tests-final.txt"
timeout 120 build-carry/poison-nomemset/lcab_kernel_tests --gtest_filter='*full_S256*:*rows_without_keys*' \
  > "$O/lcab_kernel_tests-nomemset.txt" 2>&1
test_summary nomemset $? "$O/lcab_kernel_tests-nomemset.txt"
grep -c 'Which is: nan' "$O/lcab_kernel_tests-nomemset.txt"
grep -B1 -A3 'relative_error(r.dq, ref.dq)' "$O/lcab_kernel_tests-nomemset.txt" | head -20
