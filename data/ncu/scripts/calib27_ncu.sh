#!/bin/bash
# 2026-11-26 session 13: HBM and L2 traffic (ncu, --clock-control none) and the per-CTA spread of the fresh calibration
# set's worst points (9216x4096x11008: the 128x128 tile 45% slower at 6 stages than at 4 on the GPU; 160x3584x14336: the
# crowded GPC). Timing builds made here by build_probe.py --normal, then ksweep_ncu.py.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 data/ncu/scripts/build_probe.py data/ncu/scripts/calib27_ncu.txt $OUT/manifest.json .cache/pmk28n --normal > $OUT/build.log 2>&1
echo "build rc=$?"; date -u
timeout 500 python3 data/ncu/scripts/ksweep_ncu.py $OUT $OUT/manifest.json > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; wc -l $OUT/*.jsonl; date -u
