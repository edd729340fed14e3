#!/bin/bash
# 2026-11-26 session 7: the thirteenth held-out set (100 ms loops, in-kernel clock probe; not read before the session's
# end), then the long-K calibration sweep and its ncu / per-CTA diagnostics (data/ncu/scripts/ksweep_ncu.py).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk20 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 250 $M --sweep configs/sweeps/sm90_heldout13.toml --out $OUT/h100_heldout13.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 230 --seed 9995 > $OUT/heldout13.log 2>&1; echo "heldout13 rc=$?"; date -u
timeout 200 $M --sweep configs/sweeps/sm90_ksweep.toml --out $OUT/h100_ksweep.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 190 --seed 9993 > $OUT/ksweep.log 2>&1; echo "ksweep rc=$?"; date -u
timeout 130 python3 data/ncu/scripts/ksweep_ncu.py $OUT > $OUT/ksweep_ncu.log 2>&1; echo "ncu rc=$?"
wc -l $OUT/*.jsonl; date -u
