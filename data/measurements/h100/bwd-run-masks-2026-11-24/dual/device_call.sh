#!/usr/bin/env bash
# H100 call: the backward with two kernels, chosen per mask (slices per partial tile >= 2.25: run masks, else the
# slice walk; flash_attention.cpp), against main (bacb865). GPU kernel tests (lcab_flash's backward both ways on every
# case); SASS counts against main (the slice-walk kernels should be main's); A/B per cycle, 2 rounds in alternating
# order: bf16, 64/8 heads, hd 128 and 64, bwd; full and causal at 16K, the masked patterns at 32K.
#   carry: build-carry/apps/{base,new} (lcab-kernel-bench), tests/lcab_kernel_tests (gz)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/apps/* build-carry/tests/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee $O/device.txt
for v in base new; do /usr/local/cuda/bin/cuobjdump -sass $B/apps/$v > /tmp/sass-$v.txt; done
python3 scripts/sass_counts.py --match flash_dkdv_sm90 --baseline /tmp/sass-base.txt < /tmp/sass-new.txt > $O/sass-counts.txt 2>&1
grep sm_90 $O/sass-counts.txt | grep bfloat | sed -E 's/\| _Z[^|]*kernelI([^E]*)E[^|]*/| \1 /'
timeout 300 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "^\[  FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
masks="sliding_window_causal,causal_document,block_causal_document,share_question,variable_block_sparse,block_sparse:block=64"
for order in "base new" "new base"; do
  for v in $order; do
    for hd in 128 64; do
      timeout 200 $B/apps/$v --impl lcab_flash --mask $masks --seqlen 32k --head-dim $hd --pass bwd --warmup 2 --iters 7 \
        --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd"
      timeout 200 $B/apps/$v --impl lcab_flash --mask full,causal --seqlen 16k --head-dim $hd --pass bwd --warmup 2 \
        --iters 7 --json $O/ab-$v.jsonl > /dev/null || echo "FAILED $v $hd full"
    done
  done
done
echo "ab done t=$(( $(date +%s) - T0 ))"
python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-new.jsonl > $O/ab-summary.txt
sed -E 's/rounds \[[^]]*\] \[[^]]*\]  //' $O/ab-summary.txt
