#!/bin/bash
# 2026-11-25 session 5: the tenth held-out set and its repeat on the same machine, 100 ms loops (sustained).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk10 timeout 250 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout10.toml --out $OUT/heldout10.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 230 --seed 9960 > $OUT/heldout10.log 2>&1; echo "heldout10 rc=$?"
tail -2 $OUT/heldout10.log; date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk10 timeout 200 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout10.toml --out $OUT/heldout10_repeat.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 180 --seed 9961 > $OUT/heldout10_repeat.log 2>&1; echo "repeat rc=$?"
tail -2 $OUT/heldout10_repeat.log; wc -l $OUT/*.jsonl; date -u
