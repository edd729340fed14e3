#!/bin/bash
# 2026-11-25 session 5: our kernel with the in-kernel clock probe (kernel hash 97161283f74f57f3: block 0 writes
# clock64 / %globaltimer at its start and its consumers' end for 32 launches sampled over the timed loop), to tell
# the kernel's clock from NVML's: the skinny CTA sweep (100 ms loops), the smoke sweep (30 ms loops) and the five
# 8192^3 clock configurations (1.5 s loops).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk11 python3 -m perfmodel.measure --gpu auto --no-cublas --timeout 30"
timeout 150 $M --sweep configs/sweeps/sm90_skinny_ctas.toml --out $OUT/h100_kclock_skinny.jsonl --warmup-ms 50 \
  --min-ms 100 --seed 9980 > $OUT/skinny.log 2>&1; echo "skinny rc=$?"; date -u
timeout 150 $M --sweep configs/sweeps/h100_smoke.toml --out $OUT/h100_kclock_smoke.jsonl --warmup-ms 30 \
  --min-ms 30 --seed 9981 > $OUT/smoke.log 2>&1; echo "smoke rc=$?"; date -u
timeout 120 $M --sweep configs/sweeps/sm90_clock.toml --out $OUT/h100_kclock_clock.jsonl --warmup-ms 300 \
  --min-ms 1500 --timeout 40 --seed 9982 > $OUT/clock.log 2>&1; echo "clock rc=$?"
wc -l $OUT/*.jsonl; date -u
