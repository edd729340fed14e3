#!/bin/bash
# 2026-11-27 session 21: time committed sweeps again on another card (100 ms loops, the in-kernel clock probe, as
# heldout_set.sh), for the measurement's own noise between cards (benchmarks/bench_noise.py): on the GPU machine
#   CARD=H200 TAG=r21 bash data/ncu/scripts/repeat_sets.sh heldout8 heldout9 ...  ->  $OUT/<gpu>_<name>_<TAG>.jsonl
# Measurements only: no model is run, and a held-out set timed again stays held out.
set -u
CARD=${CARD:-H}; TAG=${TAG:-repeat}
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
grep -q "$CARD" $OUT/gpu.txt || { echo "not a $CARD card"; exit 3; }
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
date -u
SWEEPS=""; for n in "$@"; do SWEEPS="$SWEEPS configs/sweeps/sm90_$n.toml"; done
python3 data/ncu/scripts/build_pmk24.py $SWEEPS > $OUT/build.log 2>&1
echo "build rc=$?"; tail -1 $OUT/build.log; date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 python3 -m perfmodel.measure --gpu auto --no-cublas --timeout 30"
for n in "$@"; do
  timeout 150 $M --sweep configs/sweeps/sm90_$n.toml --out $OUT/${G}_${n}_$TAG.jsonl --warmup-ms 50 --min-ms 100 \
    --time-budget 100 --seed 9901 > $OUT/$n.log 2>&1; echo "$n rc=$?"; date -u
done
wc -l $OUT/*.jsonl
