#!/bin/bash
# 2026-11-25 session 3: the seventh held-out set on a fresh lease (another machine, seed 9820), after the coalescer change.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk7 timeout 420 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout7.toml --out $OUT/h100_heldout7_third.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 330 --seed 9820 > $OUT/heldout7_third.log 2>&1; echo "heldout7 rc=$?"
tail -3 $OUT/heldout7_third.log; wc -l $OUT/h100_heldout7_third.jsonl; date -u
