#!/bin/bash
# 2026-11-26 session 8: the sixteenth held-out set (configs/sweeps/sm90_heldout16.toml), after the session's zero-fill
# change and before any further change; not to be read until the session whose change it judges ends. The output file
# is named by the GPU (h100_ / h200_heldout16.jsonl). Binaries of .cache/pmk22 (kernel 76a174cac980a28d).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk22 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 230 $M --sweep configs/sweeps/sm90_heldout16.toml --out $OUT/${G}_heldout16.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 200 --seed 9989 > $OUT/heldout16.log 2>&1; echo "heldout16 rc=$?"
wc -l $OUT/*.jsonl; date -u
