#!/bin/bash
# 2026-11-27 session 25: the CTAs' progress and ncu's HBM reads from one execution (drift_lru.py) for the shapes of
# drift_lru.txt, study builds made on the GPU machine (build_probe.py). Usage: bash data/ncu/scripts/drift_lru.sh
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 data/ncu/scripts/build_probe.py data/ncu/scripts/drift_lru.txt $OUT/manifest.json .cache/pmk29p > $OUT/build.log 2>&1
echo "build rc=$?"; date -u
timeout 480 python3 data/ncu/scripts/drift_lru.py $OUT $OUT/manifest.json > $OUT/run.log 2>&1
echo "run rc=$?"; rm -f $OUT/ncu_tmp.csv; wc -l $OUT/*.jsonl; date -u
