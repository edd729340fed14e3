#!/bin/bash
# 2026-11-25 session 4: on another card (the H200 try got an H100): the ninth held-out set a third time (100 ms loops,
# sustained; measured after the GPC change, not used to choose anything) and mb_tma --gpc-probe on that card.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
T=$(ls .cache/mbg4/mb_tma-* | grep -v ptxas | head -1)
timeout 120 $T --gpc-probe > $OUT/gpc.jsonl 2> $OUT/gpc.err; echo "gpc rc=$?"
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk10 timeout 250 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout9.toml --out $OUT/h100_heldout9_third.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 230 --seed 9952 > $OUT/heldout9.log 2>&1; echo "heldout9 rc=$?"
wc -l $OUT/*.jsonl; date -u
