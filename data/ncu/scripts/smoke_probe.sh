#!/bin/bash
# 2026-11-26 session 9: the seventeenth held-out set (configs/sweeps/sm90_heldout17.toml; small kernels in short loops,
# before any model change of the session; not to be read until the session whose change it judges ends), then the
# small-kernel diagnostic (configs/sweeps/sm90_smoke_probe.toml, calibration shapes): timed in short loops, then each
# binary of smoke_probe_manifest.json under the per-CTA probe and ncu. Binaries of .cache/pmk23 (kernel 76a174cac980a28d).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk23 python3 -m perfmodel.measure --gpu auto --timeout 20"
timeout 200 $M --sweep configs/sweeps/sm90_heldout17.toml --out $OUT/${G}_heldout17.jsonl --warmup-ms 10 --min-ms 30 \
  --time-budget 170 --seed 9979 > $OUT/heldout17.log 2>&1; echo "heldout17 rc=$?"; date -u
timeout 90 $M --sweep configs/sweeps/sm90_smoke_probe.toml --out $OUT/${G}_smoke_probe.jsonl --warmup-ms 10 --min-ms 30 \
  --time-budget 80 --seed 9978 > $OUT/smoke_probe.log 2>&1; echo "smoke_probe rc=$?"; date -u
timeout 200 python3 data/ncu/scripts/ksweep_ncu.py $OUT data/ncu/scripts/smoke_probe_manifest.json > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; wc -l $OUT/*.jsonl; date -u
