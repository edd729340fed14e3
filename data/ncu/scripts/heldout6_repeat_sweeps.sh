#!/bin/bash
set -u
tag=h100
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk6 python3 -m perfmodel.measure --gpu auto"
timeout 330 $M --sweep configs/sweeps/sm90_heldout6.toml --out $OUT/${tag}_heldout6.jsonl --warmup-ms 50 \
  --min-ms 100 --timeout 30 --time-budget 280 --seed 9610 > $OUT/heldout6.log 2>&1; echo "heldout6 rc=$?"
timeout 120 $M --sweep configs/sweeps/sm90_heldout6_short.toml --out $OUT/${tag}_heldout6_short.jsonl \
  --timeout 20 --min-ms 30 --warmup-ms 10 --cublas-each --seed 9710 > $OUT/heldout6_short.log 2>&1
echo "heldout6_short rc=$?"; wc -l $OUT/*.jsonl; date -u
