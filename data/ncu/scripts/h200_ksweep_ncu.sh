#!/bin/bash
# 2026-11-26 session 7: on an H200, ncu (HBM bytes, L2 hits) and the per-CTA probe of the long-K calibration binaries
# (ksweep_manifest.json + ksweep_manifest2.json, .cache/pmk20, kernel 1a8f9432f8b4af46): does the H200 read what the
# H100-fitted drift says? (a check of a GH100 copy; nothing is fitted on it)
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 250 python3 data/ncu/scripts/ksweep_ncu.py $OUT data/ncu/scripts/ksweep_manifest.json > $OUT/ncu1.log 2>&1
echo "ncu1 rc=$?"; date -u
timeout 200 python3 data/ncu/scripts/ksweep_ncu.py $OUT data/ncu/scripts/ksweep_manifest2.json > $OUT/ncu2.log 2>&1
echo "ncu2 rc=$?"; wc -l $OUT/*.jsonl; date -u
