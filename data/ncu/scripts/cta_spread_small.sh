#!/bin/bash
# 2026-11-26 session 6: per-CTA times of our GEMM on the smoke sets' small one-wave shapes (1000x1992x1016 bf16,
# 1000x1992x1040 fp8) and 2048^3, calibration shapes only (harness --cta-probe; cta_spread_small_manifest.json).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 200 python3 data/ncu/scripts/cta_spread.py $OUT/cta_spread_small.jsonl data/ncu/scripts/cta_spread_small_manifest.json \
  > $OUT/cta_spread_small.log 2>&1; echo "cta rc=$?"
wc -l $OUT/*.jsonl; date -u
