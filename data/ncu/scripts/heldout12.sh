#!/bin/bash
# 2026-11-26 session 6: the twelfth held-out set (100 ms loops, our kernel with the in-kernel clock probe) and its
# repeat on the same machine; not read before the session's end.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk17 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 250 $M --sweep configs/sweeps/sm90_heldout12.toml --out $OUT/h100_heldout12.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 230 --seed 9997 > $OUT/heldout12.log 2>&1; echo "heldout12 rc=$?"; date -u
timeout 200 $M --sweep configs/sweeps/sm90_heldout12.toml --out $OUT/h100_heldout12_repeat.jsonl --warmup-ms 50 \
  --min-ms 100 --time-budget 180 --seed 9998 > $OUT/heldout12_repeat.log 2>&1; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
