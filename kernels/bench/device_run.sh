#!/usr/bin/env bash
# One device call: GPU tests, then lcab-kernel-bench and the PyTorch peers (measure/peers/torch_peers.py) side by
# side on the same GPU.
# Usage (repository root, build-kernels built here and carried): kernels/bench/device_run.sh OUT_DIR [STEPS]
# STEPS: comma list of sass,tests,bench,peers,flex,ncu (default tests,bench,peers,flex). Logs and JSON Lines go to
# OUT_DIR. Environment: BUILD (build folder, default build-kernels), IMPLS (lcab-kernel-bench --impl, default
# lcab_flash,naive), MASKS, SEQLENS, PASSES, FLEX_SEQLENS, TEST_FILTER (gtest filter).
set -u
out=${1:?output directory}
steps=${2:-tests,bench,peers,flex}
build=${BUILD:-build-kernels}
impls=${IMPLS:-lcab_flash,naive}
passes=${PASSES:-fwd,bwd}
masks=${MASKS:-full,causal,causal_document,sliding_window_causal:window=1024,block_causal_document}
seqlens=${SEQLENS:-4096,16384,32768}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/device.txt"
if [[ $steps == *sass* ]]; then
  # The Hopper forward must issue HGMMA (wgmma), load with UTMALDG (TMA) and rebalance registers (USETMAXREG).
  cuobjdump --dump-sass "$build/tests/lcab_kernel_tests" 2>&1 \
    | awk '/Function :/ { keep = ($0 ~ /flash_forward_sm90/) } keep' > "$out/sass.txt"
  grep -oE "HGMMA[.A-Z0-9x]*|UTMA[.A-Z0-9]*|USETMAXREG[.A-Z0-9]*|LDL|STL" "$out/sass.txt" | sort | uniq -c
fi
if [[ $steps == *tests* ]]; then
  timeout 300 "$build/tests/lcab_kernel_tests" --gtest_brief=1 --gtest_filter="${TEST_FILTER:-*}" 2>&1 | tail -60 \
    | tee "$out/tests.log"
fi
if [[ $steps == *bench* ]]; then
  timeout 200 "$build/apps/lcab-kernel-bench" --impl "$impls" --mask "$masks" --seqlen "$seqlens" \
    --pass "$passes" --heads 64 --kv-heads 8 --head-dim 128 --dtype bf16 --warmup 5 --iters 20 \
    --json "$out/lcab.jsonl" --docs "$out/docs.jsonl" 2>&1 | tee "$out/bench.log"
fi
if [[ $steps == *peers* || $steps == *flex* ]]; then
  export PATH="$PWD/$build/apps:$PATH"  # measure/peers/torch_peers.py reads the masks from lcab-predict
fi
if [[ $steps == *peers* ]]; then
  PYTHONUNBUFFERED=1 timeout 90 python3 measure/peers/torch_peers.py --seqlen "$seqlens" --mask full,causal \
    --pass "$passes" --heads 64 --kv-heads 8 --head-dim 128 \
    --impl ${PEER_IMPLS:-torch_sdpa_flash,torch_sdpa_cudnn} --out "$out/peers.jsonl" 2>&1 | tee "$out/peers.log"
fi
if [[ $steps == *flex* ]]; then
  PYTHONUNBUFFERED=1 timeout 120 python3 measure/peers/torch_peers.py --seqlen "${FLEX_SEQLENS:-32768}" \
    --mask "$masks" --pass "$passes" --heads 64 --kv-heads 8 --head-dim 128 --impl torch_flex \
    --out "$out/peers.jsonl" 2>&1 | tee "$out/flex.log"
fi
if [[ $steps == *ncu* ]]; then
  # Hardware counters of one forward and one backward (dK/dV) launch of lcab_flash (NCU_SEQLEN, NCU_MASK), clocks
  # left as they are.
  timeout 200 ncu --clock-control none --kernel-name regex:"flash_(forward|dkdv)" --launch-count 2 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section SchedulerStats \
    "$build/apps/lcab-kernel-bench" --impl lcab_flash --mask "${NCU_MASK:-full}" --seqlen "${NCU_SEQLEN:-16384}" \
    --pass fwd,bwd --warmup 0 --iters 1 > "$out/ncu.txt" 2>&1
  grep -E "flash_|Throughput|Duration|Registers|Achieved Occupancy|Stall|Issue Slot|Warp Cycles|Bank|Pipe|L2 Hit|Executed Ipc|Eligible|Active Warps" "$out/ncu.txt" | head -120
fi
