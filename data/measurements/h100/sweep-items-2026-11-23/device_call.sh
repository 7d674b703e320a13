#!/usr/bin/env bash
# Re-measures lcab_flash's sweeps after the forward's shared-memory items and the mask bits (every mask pattern x
# 1K..64K x GQA/MHA x hd 64/128; PASSES="fwd bwd" by default), runs the GPU kernel tests (TESTS=1), and dumps the
# Hopper kernels' SASS where the machine has cuobjdump (for the spill and HGMMA checks).
#   carry: build-carry/{apps/lcab-measure,tests/lcab_kernel_tests}
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
if [[ ${TESTS:-0} == 1 ]]; then
  timeout 200 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
  echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
  grep FAILED $O/lcab_kernel_tests.txt | head
fi
masks=full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse
for pass in ${PASSES:-fwd bwd}; do
  timeout 240 $B/apps/lcab-measure kernel --impl lcab_flash --mask $masks --seqlen 1k,2k,4k,8k,16k,32k,64k \
    --pass $pass --heads 64 --kv-heads 8,64 --head-dim 128,64 --warmup 2 --reps 5 \
    --out $O/lcab-measure-kernel-$pass-items.jsonl > /dev/null 2> $O/$pass.log
  echo "sweep $pass rc=$? t=$(( $(date +%s) - T0 )) records=$(wc -l < $O/lcab-measure-kernel-$pass-items.jsonl)"
done
if [[ ${SASS:-0} == 1 ]]; then
  dump=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
  if [[ -n "$dump" ]]; then
    $dump -sass -arch sm_90a $B/apps/lcab-measure 2>/dev/null | awk '/Function : .*flash_backward_sm90/{p=1} /Function : /&&!/flash_backward_sm90/{p=0} p' \
      | gzip > $O/backward_sm90.sass.gz
    echo "sass $(zcat $O/backward_sm90.sass.gz | wc -l) lines, LDL $(zcat $O/backward_sm90.sass.gz | grep -c LDL) STL $(zcat $O/backward_sm90.sass.gz | grep -c STL)"
  else
    echo "no cuobjdump on this machine"
  fi
fi
