#!/bin/bash
# 2026-11-26 session 8: the fifteenth held-out set on an H200 (all held out, never fitted; not to be read until the
# session whose change it judges ends), then mb_tma --skinny-oob on the H200 (its own zero-fill cost, against the
# GH100 copy of tma.oob_l2_cost). Binaries of .cache/pmk22 (kernel 76a174cac980a28d) and .cache/oob (mb_tma).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk22 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 230 $M --sweep configs/sweeps/sm90_heldout15.toml --out $OUT/h200_heldout15.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 200 --seed 9987 > $OUT/heldout15.log 2>&1; echo "heldout15 rc=$?"; date -u
T=$(ls .cache/oob/mb_tma-* | grep -v ptxas | head -1)
timeout 200 $T --skinny-oob > $OUT/oob.jsonl 2> $OUT/oob.err; echo "oob rc=$?"
wc -l $OUT/*.jsonl; date -u
