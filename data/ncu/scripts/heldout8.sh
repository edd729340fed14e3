#!/bin/bash
# 2026-11-25 session 4: mb_tma --skinny-private (the skinny ring's A box shared by every CTA or private to each),
# then the eighth held-out set and its repeat on the same machine, 100 ms loops (sustained).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
T=$(ls .cache/mbp/mb_tma-* | grep -v ptxas | head -1)
timeout 120 $T --skinny-private > $OUT/private.jsonl 2> $OUT/private.err; echo "private rc=$?"
date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk9 timeout 250 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout8.toml --out $OUT/h100_heldout8.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 230 --seed 9900 > $OUT/heldout8.log 2>&1; echo "heldout8 rc=$?"
tail -2 $OUT/heldout8.log; date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk9 timeout 200 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout8.toml --out $OUT/h100_heldout8_repeat.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 180 --seed 9901 > $OUT/heldout8_repeat.log 2>&1; echo "repeat rc=$?"
tail -2 $OUT/heldout8_repeat.log; wc -l $OUT/*.jsonl; date -u
