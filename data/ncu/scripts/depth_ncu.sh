#!/bin/bash
# 2026-11-26 session 13: HBM and L2 traffic (ncu, --clock-control none) and the per-CTA spread against ring depth at long K
# (calibration shapes; the drift law l2.sm_rate_spread has no ring depth in it, and 9216x4096x11008 128x128 reads
# 1.7x the model at 6 stages, 0.94x at 4). Timing builds made here by build_probe.py --normal, then ksweep_ncu.py.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 data/ncu/scripts/build_probe.py data/ncu/scripts/depth_ncu.txt $OUT/manifest.json .cache/pmk28d --normal > $OUT/build.log 2>&1
echo "build rc=$?"; date -u
timeout 500 python3 data/ncu/scripts/ksweep_ncu.py $OUT $OUT/manifest.json > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; wc -l $OUT/*.jsonl; date -u
