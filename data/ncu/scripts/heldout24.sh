#!/bin/bash
# 2026-11-26 session 12: build (.cache/pmk24 on the GPU machine, kernel d5946ed637c1a372) and measure the twenty-fourth
# held-out set (configs/sweeps/sm90_heldout24.toml; 100 ms loops; read once, for the twelfth session's second change).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
python3 data/ncu/scripts/build_pmk24.py configs/sweeps/sm90_heldout24.toml > $OUT/build.log 2>&1
echo "build rc=$?"; tail -1 $OUT/build.log; date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 330 $M --sweep configs/sweeps/sm90_heldout24.toml --out $OUT/${G}_heldout24.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 300 --seed 9872 > $OUT/heldout24.log 2>&1; echo "heldout24 rc=$?"; wc -l $OUT/*.jsonl; date -u
