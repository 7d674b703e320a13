#!/usr/bin/env bash
# H100 call: the deferred epilogue with every branch on the item's shared fields visibly warp-uniform (Va: the
# item loop's exit and its has-tiles test through warp_uniform; Vb: Va with the deferred epilogue after the first S's
# wait instead of before it), against main's binary (base). Per build, the count of R2UR and of uniform-datapath
# instructions in the bf16 forward kernels' SASS (cuobjdump of sm_90a objects, also of main with its loop exit made
# uniform, Vm); GPU kernel tests of Va; forward A/B, three rounds in rotating order, hd 64 and 128, 64/8 heads, bf16.
#   carry: build-carry/{base,Va,Vb}/lcab-kernel-bench, tests/lcab_kernel_tests, sassv/fwd_{Va,Vb,Vm}.o (gzipped)
for f in build-carry/*/*.gz; do gunzip -f "$f"; done
chmod +x build-carry/base/* build-carry/Va/* build-carry/Vb/* build-carry/tests/*
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
O=$OUT/r; mkdir -p $O; T0=$(date +%s); B=build-carry
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
count() {  # SASS of one object or binary -> per bf16 forward kernel: instructions, R2UR, uniform-datapath ops
  /usr/local/cuda/bin/cuobjdump -sass "$1" 2>/dev/null | awk '
    /Function : /{ if (name) printf "%s %s: %d instructions, %d R2UR, %d uniform\n", tag, name, n, r, u;
                   name = ""; if ($0 ~ /flash_forward_sm90_kernelI13__nv_bfloat16Li(64|128)E/) { name = ($0 ~ /Li64E/) ? "hd64" : "hd128"; n = r = u = 0 } }
    name && /\/\*[0-9a-f]+\*\/ / { n++; if ($0 ~ / R2UR /) r++; if ($0 ~ / U(IADD3|LOP3|SHF|LEA|MOV)/) u++ }
    END { if (name) printf "%s %s: %d instructions, %d R2UR, %d uniform\n", tag, name, n, r, u }' tag="$2"
}
{ count $B/base/lcab-kernel-bench base; for v in Va Vb Vm; do count $B/sassv/fwd_$v.o $v; done; } | tee $O/sass-counts.txt
timeout 200 $B/tests/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/lcab_kernel_tests.txt | tr '\n' ' ') t=$(( $(date +%s) - T0 ))"
grep -E "FAILED|Failure" $O/lcab_kernel_tests.txt | head -20
for v in base Va Vb  Vb Va base  base Va Vb; do
  for m in "full,causal 16384" "causal_document,sliding_window_causal:window=1024,block_causal_document 32768" \
           "causal_document,sliding_window_causal:window=1024 8192"; do
    set -- $m
    timeout 120 $B/$v/lcab-kernel-bench --impl lcab_flash --pass fwd --mask "$1" --seqlen $2 --heads 64 --kv-heads 8 \
      --head-dim 64,128 --dtype bf16 --warmup 3 --iters 10 --json $O/ab-$v.jsonl 2>&1 | sed "s/^/$v /" >> $O/ab.txt
  done
done
echo "ab t=$(( $(date +%s) - T0 ))"
for v in Va Vb; do
  echo "== base -> $v"; python3 scripts/ab_compare.py $O/ab-base.jsonl $O/ab-$v.jsonl
done > $O/ab-summary.txt
cat $O/ab-summary.txt
