#!/bin/bash
# 2026-11-26 session 7: why tensor-bound 128x256 tiles re-read K-slabs on the H100 at long K (2.2-2.7x the in-step
# model's HBM bytes, not on the H200): ncu with the L2 fabric counters of 128x256 (plain and 2x1 multicast) and 128x128 s3
# at 4096x4096 with K = 8192..49152 (fabric_manifest.json, calibration shapes, .cache/pmk22), --ncu-only.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 250 python3 data/ncu/scripts/ksweep_ncu.py $OUT data/ncu/scripts/fabric_manifest.json --ncu-only > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; wc -l $OUT/*.jsonl; date -u
