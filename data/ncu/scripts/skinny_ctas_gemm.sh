#!/bin/bash
# 2026-11-25 session 3: our kernel at 64xNx28672 (8..128 CTAs) for the skinny 128-row-tile miss.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk8 timeout 300 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_skinny_ctas.toml --out $OUT/h100_skinny_ctas.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --seed 9900 > $OUT/skinny_ctas.log 2>&1; echo "rc=$?"
tail -3 $OUT/skinny_ctas.log; wc -l $OUT/h100_skinny_ctas.jsonl; date -u
