#!/bin/bash
# 2026-11-26 session 9: the tile-switch / epilogue / pitch diagnostic (configs/sweeps/sm90_tile_probe.toml, calibration
# shapes): timed in short loops (normal builds, .cache/pmk24, kernel 5138e5f29fa0a359: cubin identical to 76a174cac980a28d's),
# then the study builds (.cache/pmk24p) under the per-CTA probe with per-k-block and per-tile samples.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 python3 -m perfmodel.measure --gpu auto --timeout 20"
timeout 120 $M --sweep configs/sweeps/sm90_tile_probe.toml --out $OUT/${G}_tile_probe.jsonl --warmup-ms 10 --min-ms 30 \
  --time-budget 100 --seed 9977 > $OUT/tile_probe_time.log 2>&1; echo "timed rc=$?"; date -u
timeout 200 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/tile_probe_manifest.json > $OUT/probe.log 2>&1
echo "probe rc=$?"; wc -l $OUT/*.jsonl; date -u
