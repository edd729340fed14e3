#!/bin/bash
# 2026-11-25 session 5: on the same warm H200, mb_tma --gpc-probe (a second H200 card's pool and placement) and the
# tenth held-out set again (h200_heldout10_repeat); on an H100 it stops after naming the card.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) ;; *) echo "not an H200: stop"; exit 0 ;;
esac
date -u
T=$(ls .cache/mbg5/mb_tma-* | grep -v ptxas | head -1)
timeout 120 $T --gpc-probe > $OUT/gpc.jsonl 2> $OUT/gpc.err; echo "gpc rc=$?"
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk10 timeout 250 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout10.toml --out $OUT/h200_heldout10_repeat.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 230 --seed 9971 > $OUT/h200_heldout10_repeat.log 2>&1; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
