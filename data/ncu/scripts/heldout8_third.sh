#!/bin/bash
# 2026-11-25 session 4: on another card (the H200 try got an H100): mb_tma --skinny-private again and the eighth
# held-out set a third time (100 ms loops, sustained).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
T=$(ls .cache/mbp/mb_tma-* | grep -v ptxas | head -1)
timeout 120 $T --skinny-private > $OUT/private.jsonl 2> $OUT/private.err; echo "private rc=$?"
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk9 timeout 250 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout8.toml --out $OUT/h100_heldout8_third.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 230 --seed 9920 > $OUT/heldout8.log 2>&1; echo "heldout8 rc=$?"
wc -l $OUT/*.jsonl; date -u
