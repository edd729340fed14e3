#!/bin/bash
# 2026-11-26 session 11: the low-fill probe (configs/sweeps/sm90_oob_probe.toml, calibration shapes): timed in 100 ms
# loops with the in-kernel clock, then five of its kernels under ncu's full set (data/ncu/scripts/oob_ncu.py).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
python3 data/ncu/scripts/build_pmk24.py configs/sweeps/sm90_oob_probe.toml > $OUT/build.log 2>&1; tail -1 $OUT/build.log
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 200 $M --sweep configs/sweeps/sm90_oob_probe.toml --out $OUT/${G}_oob_probe.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 180 --seed 9911 > $OUT/oob_probe.log 2>&1; echo "oob_probe rc=$?"; date -u
timeout 300 python3 data/ncu/scripts/oob_ncu.py $OUT > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; tail -6 $OUT/ncu.log; wc -l $OUT/*.jsonl; date -u
