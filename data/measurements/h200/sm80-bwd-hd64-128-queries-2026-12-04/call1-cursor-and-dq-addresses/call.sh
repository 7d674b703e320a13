# The device tool's command of this call, as it ran (build-carry/main: main fcfca4b; ahead, dqaddr, both: main with
# the patch of that name, packed by scripts/carry.sh):
export NCCL_NVLS_ENABLE=0; IMPL=lcab_flash_sm80 PASS=bwd HEAD_DIMS="128 64" ROUNDS=2 SASS_MATCH=flash_dkdv_kernel TESTS_TIMEOUT=240 bash scripts/ab_device_call.sh --tests both main ahead dqaddr both
