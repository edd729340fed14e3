#!/bin/bash
# 2026-11-26 session 8: the 256x128 skinny miss (configs/sweeps/sm90_skinny256.toml, calibration shapes), timed, then
# ncu and the per-CTA probe of its two skinny shapes' binaries (skinny256_manifest.json). Binaries of .cache/pmk22,
# kernel 76a174cac980a28d. No held-out data is measured.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk22 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 150 $M --sweep configs/sweeps/sm90_skinny256.toml --out $OUT/h100_skinny256.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 120 --seed 9983 > $OUT/skinny256.log 2>&1; echo "skinny256 rc=$?"; date -u
timeout 200 python3 data/ncu/scripts/ksweep_ncu.py $OUT data/ncu/scripts/skinny256_manifest.json > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; wc -l $OUT/*.jsonl; date -u
