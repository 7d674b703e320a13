#!/usr/bin/env bash
# Diagnostic: one Nsight Compute launch of the adopted mma.sync dK/dV kernel (build-carry/final: main a2c7db4's
# binaries) and one of PyTorch SDPA's FlashAttention-2 backward kernel, full 16K, 64 / 8 heads, bf16, hd 128 then 64
# (clocks left alone), each at most 60 s, the call at most about 230 s. Details and per-instruction source pages as
# CSV; everything comes back as one archive, all.tgz.
source scripts/device_call_env.sh || exit 2
trap 'tar czf "$OUT/all.tgz" -C "$OUT" r && rm -rf "$O"' EXIT
B=build-carry/final
bash scripts/carry.sh unpack $B > /dev/null
device_info
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
          --section SourceCounters --section ComputeWorkloadAnalysis --section InstructionStats
          --section MemoryWorkloadAnalysis_Tables)
export_report() {  # NAME
  ncu --import "$O/$1.ncu-rep" --page details --csv > "$O/$1-details.csv" 2>/dev/null
  ncu --import "$O/$1.ncu-rep" --page source --csv --print-source sass 2>/dev/null | gzip -9n > "$O/$1-source.csv.gz"
  rm -f "$O/$1.ncu-rep"
}
for hd in 128 64; do
  [ "$(t)" -lt 170 ] || break
  timeout 60 ncu --clock-control none --kernel-name regex:flash_dkdv_kernel --launch-count 1 "${sections[@]}" \
    -f -o "$O/ncu-lcab-hd$hd" $B/lcab-kernel-bench --impl lcab_flash_sm80 --mask full --seqlen 16k --head-dim $hd \
    --pass bwd --warmup 0 --iters 1 > "$O/ncu-lcab-hd$hd.log" 2>&1
  echo "ncu lcab hd $hd rc=$? t=$(t)"; export_report ncu-lcab-hd$hd
  [ "$(t)" -lt 170 ] || break
  timeout 60 ncu --clock-control none --kernel-name regex:flash_bwd_dq_dk_dv --launch-count 1 "${sections[@]}" \
    -f -o "$O/ncu-fa2-hd$hd" python3 measure/peers/torch_peers.py --impl torch_sdpa_flash --mask full --seqlen 16k \
    --head-dim $hd --pass bwd --warmup 0 --reps 1 --max-dense-mask-bytes 0 \
    --lcab-predict $B/lcab-predict > "$O/ncu-fa2-hd$hd.log" 2>&1
  echo "ncu fa2 hd $hd rc=$? t=$(t)"; export_report ncu-fa2-hd$hd
done
