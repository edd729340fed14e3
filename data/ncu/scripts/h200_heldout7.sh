#!/bin/bash
# 2026-11-25 session 4, on the H200 that the gpc_clusters call got: the seventh held-out set (100 ms loops, never
# measured on an H200).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) ;; *) echo "not an H200: stop"; exit 0 ;;
esac
date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk10 timeout 200 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout7.toml --out $OUT/h200_heldout7.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 180 --seed 9960 > $OUT/heldout7.log 2>&1; echo "heldout7 rc=$?"
wc -l $OUT/*.jsonl; date -u
