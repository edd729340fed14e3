#!/bin/bash
# 2026-11-26 session 7: HBM traffic (ncu) and per-CTA spread of our GEMM on the main calibration shapes (many waves,
# short and long K: does the long-K reuse loss grow with the CTAs' progress or with K?), with the L2 fabric counters.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 400 python3 data/ncu/scripts/ksweep_ncu.py $OUT data/ncu/scripts/ksweep_manifest3.json > $OUT/ncu3.log 2>&1
echo "ncu3 rc=$?"; wc -l $OUT/*.jsonl; date -u
