#!/bin/bash
# 2026-11-26 session 12 (end): build (.cache/pmk24 on the GPU machine, kernel d5946ed637c1a372) and measure the twenty-fifth
# held-out set (configs/sweeps/sm90_heldout25.toml; 100 ms loops; not to be read until the session whose change it judges ends).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
python3 data/ncu/scripts/build_pmk24.py configs/sweeps/sm90_heldout25.toml > $OUT/build.log 2>&1
echo "build rc=$?"; tail -1 $OUT/build.log; date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 330 $M --sweep configs/sweeps/sm90_heldout25.toml --out $OUT/${G}_heldout25.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 300 --seed 9873 > $OUT/heldout25.log 2>&1; echo "heldout25 rc=$?"; wc -l $OUT/*.jsonl; date -u
