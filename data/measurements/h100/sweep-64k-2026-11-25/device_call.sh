# lcab_flash at 64K with main's kernels (fwd and bwd, every mask, 64 / 8 and 64 / 64 heads, hd 128 and 64, bf16):
# the points the 1K-32K sweeps of 2026-11-24 did not re-measure, whose records were of the kernels of 2026-11-23.
# Run by the device tool with carry build-carry/m64 (main's lcab-measure, packed by scripts/carry.sh).
source scripts/device_call_env.sh || exit 2
device_info
bash scripts/carry.sh unpack build-carry/m64
masks=full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window
masks=$masks,sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal
masks=$masks,prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse
for pass in fwd bwd; do
  timeout 280 build-carry/m64/lcab-measure kernel --impl lcab_flash --mask "$masks" --seqlen 64k --heads 64 \
    --kv-heads 8,64 --head-dim 128,64 --dtype bf16 --pass $pass --warmup 2 --reps 5 \
    --out "$O/lcab-measure-kernel-$pass-64k-2026-11-25.jsonl" > /dev/null 2>> "$O/sweep-$pass.err"
  echo "$pass rc=$? points=$(wc -l < "$O/lcab-measure-kernel-$pass-64k-2026-11-25.jsonl") t=$(t)"
done
