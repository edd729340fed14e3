#!/bin/bash
# 2026-11-26 session 5: the in-kernel clock probe on an H200 (kernel hash 97161283f74f57f3): the skinny CTA sweep
# (100 ms loops; GEMMs far under the power cap: the tensor cores' clock ceiling, clock.tensor_max_hz) and the five 8192^3
# clock configurations (1.5 s loops). On an H100 it stops after naming the card.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) ;; *) echo "not an H200: stop"; exit 0 ;;
esac
date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk13 python3 -m perfmodel.measure --gpu auto --no-cublas --timeout 30"
timeout 150 $M --sweep configs/sweeps/sm90_skinny_ctas.toml --out $OUT/h200_kclock_skinny.jsonl --warmup-ms 50 \
  --min-ms 100 --seed 9985 > $OUT/skinny.log 2>&1; echo "skinny rc=$?"; date -u
timeout 120 $M --sweep configs/sweeps/sm90_clock.toml --out $OUT/h200_kclock_clock.jsonl --warmup-ms 300 \
  --min-ms 1500 --timeout 40 --seed 9986 > $OUT/clock.log 2>&1; echo "clock rc=$?"
wc -l $OUT/*.jsonl; date -u
