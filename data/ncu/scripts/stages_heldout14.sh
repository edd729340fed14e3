#!/bin/bash
# 2026-11-26 session 7 (after the thirteenth set was read): the fourteenth held-out set, before any further model change
# (not read before the session's end), then the ring-depth diagnostic (calibration) with the ncu / per-CTA probe of its
# 4096x4096x32768 binaries (stages_manifest.json). Binaries of .cache/pmk22, kernel 76a174cac980a28d.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk22 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 200 $M --sweep configs/sweeps/sm90_heldout14.toml --out $OUT/h100_heldout14.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 180 --seed 9981 > $OUT/heldout14.log 2>&1; echo "heldout14 rc=$?"; date -u
timeout 130 $M --sweep configs/sweeps/sm90_stages.toml --out $OUT/h100_stages.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 120 --seed 9979 > $OUT/stages.log 2>&1; echo "stages rc=$?"; date -u
timeout 150 python3 data/ncu/scripts/ksweep_ncu.py $OUT data/ncu/scripts/stages_manifest.json > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; wc -l $OUT/*.jsonl; date -u
