#!/bin/bash
# 2026-11-26 session 8: the fifteenth held-out set (configs/sweeps/sm90_heldout15.toml), before any of the session's
# model changes (not to be read until the session whose change it judges ends), then mb_tma --skinny-oob (A boxes
# beyond the matrix edge in rings shaped as our tiles). Binaries of .cache/pmk22 (kernel 76a174cac980a28d) and
# .cache/oob (mb_tma).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk22 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 230 $M --sweep configs/sweeps/sm90_heldout15.toml --out $OUT/h100_heldout15.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 200 --seed 9985 > $OUT/heldout15.log 2>&1; echo "heldout15 rc=$?"; date -u
T=$(ls .cache/oob/mb_tma-* | grep -v ptxas | head -1)
timeout 200 $T --skinny-oob > $OUT/oob.jsonl 2> $OUT/oob.err; echo "oob rc=$?"
wc -l $OUT/*.jsonl; date -u
