#!/bin/bash
# 2026-11-25 session 3: mb_tma --skinny-abox and --skinny-ctas again, now with the slowest CTA's cycles a k-block
# (max_cycles_per_kblock) beside the median CTA's, 8..96 CTAs; our kernel's skinny sweep on the same card.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
T=$(ls .cache/abox2/mb_tma-* | grep -v ptxas | head -1)
timeout 120 $T --skinny-abox > $OUT/abox.jsonl 2> $OUT/abox.err; echo "abox rc=$?"
timeout 120 $T --skinny-ctas > $OUT/skinny_ctas.jsonl 2> $OUT/skinny_ctas.err; echo "skinny-ctas rc=$?"
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk8 timeout 200 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_skinny_ctas.toml --out $OUT/h100_skinny_ctas_third.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --seed 9920 > $OUT/skinny_gemm.log 2>&1; echo "gemm rc=$?"
wc -l $OUT/*.jsonl; date -u
