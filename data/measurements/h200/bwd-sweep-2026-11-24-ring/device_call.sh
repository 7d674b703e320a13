#!/usr/bin/env bash
# nvidia-h200-x2 call, main's binaries of c47d369 (the backward since its idle key halves, conversion placement and
# hd 64 ring, which the H200 profile has not seen): the GPU tests on two H200s, lcab_flash's backward sweep on GPU 1
# (every registered mask x 1K..32K x 64/8 and 64/64 heads x hd 64/128/256, bf16, 2 warm-up and 5 timed repetitions),
# then the CP campaign of ../../h200x2/cp-run-masks-2026-11-24 on both GPUs (records in ../../h200x2/cp-2026-11-24-ring/).
#   carry: build-carry/h200/{lcab-measure,lcab_kernel_tests,lcab_cp_tests,lcab_measure_tests}.xz (scripts/carry.sh pack)
source scripts/device_call_env.sh || exit 2
B=build-carry/h200
bash scripts/carry.sh unpack $B
set -u
device_info
nvidia-smi topo -m > "$O/topo.txt" 2>&1
timeout 200 $B/lcab_cp_tests > $O/lcab_cp_tests.txt 2>&1; test_summary cp $? $O/lcab_cp_tests.txt
CUDA_VISIBLE_DEVICES=0 timeout 200 $B/lcab_kernel_tests > $O/lcab_kernel_tests.txt 2>&1 &
k=$!
CUDA_VISIBLE_DEVICES=1 timeout 200 $B/lcab_measure_tests > $O/lcab_measure_tests.txt 2>&1; test_summary measure $? $O/lcab_measure_tests.txt
wait $k; test_summary kernel $? $O/lcab_kernel_tests.txt
S=$O/lcab-measure-kernel-bwd-2026-11-24-ring.jsonl
(export CUDA_VISIBLE_DEVICES=1; flash_sweep $B/lcab-measure bwd 64,128 $S 120; flash_sweep $B/lcab-measure bwd 256 $S 80)
common="--mask full,causal,causal_document --seqlen 64k,128k,256k --pass fwd,bwd --heads 16 --kv-heads 2 --head-dim 128 --gpus 2 --gpus-per-node 2 --warmup 1 --reps 3"
run() { timeout $(( 575 - $(t) )) $B/lcab-measure cp "$@" $common --out $O/cp.jsonl >> $O/cp.md 2>> $O/cp.err
        echo "cp $1 $2 rc=$? t=$(t) records=$(wc -l < $O/cp.jsonl)"; }
run --method ring --baseline
run --method allgather
run --method ulysses
run --method loongtrain --ulysses 1 --ring 2 --windows 2
