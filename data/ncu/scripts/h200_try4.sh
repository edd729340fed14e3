#!/bin/bash
# 2026-11-25 session 4, a seventh try for an H200: only on an H200, the ninth and eighth held-out sets (100 ms loops,
# never measured on an H200; the H200 is never fitted); on an H100 it stops after naming the card.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) ;; *) echo "not an H200: stop"; exit 0 ;;
esac
date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk10 timeout 250 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout9.toml --out $OUT/h200_heldout9.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 230 --seed 9930 > $OUT/heldout9.log 2>&1; echo "heldout9 rc=$?"
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk10 timeout 250 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout8.toml --out $OUT/h200_heldout8.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 230 --seed 9940 > $OUT/heldout8.log 2>&1; echo "heldout8 rc=$?"
wc -l $OUT/*.jsonl; date -u
