#!/bin/bash
# 2026-11-26 session 10: the store probe (configs/sweeps/sm90_store_probe.toml, calibration shapes): direct-store and
# TMA-store twins timed in 100 ms loops with the in-kernel clock, then each binary of store_probe_manifest.json under
# ncu (the L2's write requests and sectors, data/ncu/scripts/store_ncu.py). Binaries of .cache/pmk24 (built by
# heldout18.sh on the same machine, or here if missing).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
python3 data/ncu/scripts/build_pmk24.py configs/sweeps/sm90_store_probe.toml > $OUT/build.log 2>&1; tail -1 $OUT/build.log
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 150 $M --sweep configs/sweeps/sm90_store_probe.toml --out $OUT/${G}_store_probe.jsonl --warmup-ms 50 \
  --min-ms 100 --time-budget 140 --seed 9968 > $OUT/store_probe.log 2>&1; echo "store_probe rc=$?"; date -u
timeout 300 python3 data/ncu/scripts/store_ncu.py $OUT data/ncu/scripts/store_probe_manifest.json > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; tail -3 $OUT/ncu.log; wc -l $OUT/*.jsonl; date -u
