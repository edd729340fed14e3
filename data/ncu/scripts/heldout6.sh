#!/bin/bash
# 2026-11-25 session 3: the sixth held-out set, 100 ms loops (sustained) then the short kernels in 30 ms loops.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
echo "== heldout6" ; date -u
PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk6 timeout 400 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout6.toml --out $OUT/h100_heldout6.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 330 --seed 9600 > $OUT/heldout6.log 2>&1; echo "rc=$?"
tail -3 $OUT/heldout6.log; wc -l $OUT/h100_heldout6.jsonl; date -u
sleep 3
echo "== heldout6_short" ; date -u
PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk6 timeout 150 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout6_short.toml --out $OUT/h100_heldout6_short.jsonl \
  --timeout 20 --min-ms 30 --warmup-ms 10 --cublas-each --seed 9700 > $OUT/heldout6_short.log 2>&1; echo "rc=$?"
tail -3 $OUT/heldout6_short.log; wc -l $OUT/h100_heldout6_short.jsonl; date -u
