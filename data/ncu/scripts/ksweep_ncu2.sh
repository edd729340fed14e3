#!/bin/bash
# 2026-11-26 session 7: ncu again on the long-K calibration binaries (the first run lost its dram__ columns), then
# 10 more binaries (64x128 s9, 128x128 s4, and K = 24576) with their per-CTA probe too.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 200 python3 data/ncu/scripts/ksweep_ncu.py $OUT data/ncu/scripts/ksweep_manifest.json --ncu-only > $OUT/ncu1.log 2>&1
echo "ncu1 rc=$?"; date -u
timeout 200 python3 data/ncu/scripts/ksweep_ncu.py $OUT data/ncu/scripts/ksweep_manifest2.json > $OUT/ncu2.log 2>&1
echo "ncu2 rc=$?"; wc -l $OUT/*.jsonl; date -u
