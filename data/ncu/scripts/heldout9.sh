#!/bin/bash
# 2026-11-25 session 4: the ninth held-out set and its repeat on the same machine, 100 ms loops (sustained).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk10 timeout 250 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout9.toml --out $OUT/h100_heldout9.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 230 --seed 9950 > $OUT/heldout9.log 2>&1; echo "heldout9 rc=$?"
tail -2 $OUT/heldout9.log; date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk10 timeout 200 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout9.toml --out $OUT/h100_heldout9_repeat.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 180 --seed 9951 > $OUT/heldout9_repeat.log 2>&1; echo "repeat rc=$?"
tail -2 $OUT/heldout9_repeat.log; wc -l $OUT/*.jsonl; date -u
