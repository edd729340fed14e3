#!/bin/bash
# 2026-11-27 session 19: our GEMM's board power in 8 s loops (configs/sweeps/sm90_power_probe.toml), on the GPU machine:
# bash data/ncu/scripts/gemm_power.sh CARD  ->  $OUT/<gpu>_power_probe.jsonl (NVML power and the in-kernel clock)
# (session 20: SWEEP=configs/sweeps/sm90_power_probe2.toml NAME=power_probe2 for another sweep and output name;
#  MINREPS=40000 lifts the harness's 2000-launch cap so that short kernels' loops last seconds too)
set -u
CARD=${1:-H}
SWEEP=${SWEEP:-configs/sweeps/sm90_power_probe.toml}
NAME=${NAME:-power_probe}
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
grep -q "$CARD" $OUT/gpu.txt || { echo "not a $CARD card"; exit 3; }
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
date -u
python3 data/ncu/scripts/build_pmk24.py $SWEEP > $OUT/build.log 2>&1
echo "build rc=$?"; date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 python3 -m perfmodel.measure --gpu auto --timeout 60"
timeout 300 $M --sweep $SWEEP --out $OUT/${G}_$NAME.jsonl --warmup-ms 1000 --min-ms 8000 \
  --time-budget 250 --seed 9900 ${MINREPS:+--min-reps $MINREPS} > $OUT/$NAME.log 2>&1; echo "$NAME rc=$?"; wc -l $OUT/*.jsonl; date -u
tail -14 $OUT/$NAME.log
