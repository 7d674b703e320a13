#!/bin/bash
# A/B in one binary: paired backward launches (default) vs unpaired (LCAB_BWD_PAIRS_OFF=1), GQA/MHA, hd 128/64.
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
B=build-carry; O=$OUT/r; mkdir -p $O
finish() { tar czf $OUT/results.tgz -C $OUT r; }
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
bench() { # name env kv hd masks seqlens
  env $2 timeout 150 $B/apps/lcab-kernel-bench --impl lcab_flash --pass bwd --mask "$5" --seqlen $6 --heads 64 --kv-heads $3 \
    --head-dim $4 --dtype bf16 --warmup 2 --iters 7 --json $O/ab-$1.jsonl 2>&1 | sed "s/^/$1 kv$3 hd$4 /" >> $O/ab.txt
}
for order in "pairs unpaired" "unpaired pairs"; do
  for v in $order; do
    e="X=1"; [[ $v == unpaired ]] && e="LCAB_BWD_PAIRS_OFF=1"
    bench $v $e 8 128 causal,prefix_lm_causal,causal_document_long 4096,16384
    bench $v $e 8 128 causal,causal_document_long 65536
    bench $v $e 8 128 full_document,causal_blockwise 16384
    bench $v $e 8 128 share_question,block_causal_document 4096
    bench $v $e 64 128 causal,causal_document,causal_document_long,prefix_lm_causal 16384,32768
    bench $v $e 8 64 causal,causal_document 16384,32768
  done
  echo "round t=$SECONDS"
done
