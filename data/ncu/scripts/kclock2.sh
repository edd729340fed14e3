#!/bin/bash
# 2026-11-25 session 5: our kernel with the in-kernel clock probe (kernel hash 97161283f74f57f3) over the real-model
# shapes (both halves of the split, 100 ms loops) and the tenth held-out set again (held out, not read before the end).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk12 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 340 $M --sweep configs/sweeps/sm90_real_shapes.toml --out $OUT/h100_real_shapes_kclock.jsonl --warmup-ms 50 \
  --min-ms 100 --time-budget 320 --seed 9990 > $OUT/real.log 2>&1; echo "real rc=$?"; date -u
timeout 200 $M --sweep configs/sweeps/sm90_heldout10.toml --out $OUT/h100_heldout10_kclock.jsonl --warmup-ms 50 \
  --min-ms 100 --time-budget 180 --seed 9991 > $OUT/heldout10.log 2>&1; echo "heldout10 rc=$?"
wc -l $OUT/*.jsonl; date -u
