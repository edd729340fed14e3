#!/bin/bash
# 2026-11-26 session 6: the twelfth held-out set on an H200 if the lent machine is one (h200_heldout12), else a third
# run on another H100 card (h100_heldout12_third); 100 ms loops, never read before the session's end.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) name=h200_heldout12; seed=9999 ;; *) name=h100_heldout12_third; seed=10000 ;;
esac
date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk17 timeout 250 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout12.toml --out $OUT/$name.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 230 --seed $seed > $OUT/$name.log 2>&1; echo "$name rc=$?"
wc -l $OUT/*.jsonl; date -u
