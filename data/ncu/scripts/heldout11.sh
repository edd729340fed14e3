#!/bin/bash
# 2026-11-26 session 5: the eleventh held-out set (100 ms loops, our kernel with the in-kernel clock probe) and its
# repeat on the same machine; not read before the session's end.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk14 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 250 $M --sweep configs/sweeps/sm90_heldout11.toml --out $OUT/h100_heldout11.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 230 --seed 9995 > $OUT/heldout11.log 2>&1; echo "heldout11 rc=$?"; date -u
timeout 200 $M --sweep configs/sweeps/sm90_heldout11.toml --out $OUT/h100_heldout11_repeat.jsonl --warmup-ms 50 \
  --min-ms 100 --time-budget 180 --seed 9996 > $OUT/heldout11_repeat.log 2>&1; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
