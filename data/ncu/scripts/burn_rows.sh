#!/bin/bash
# 2026-11-25 session 5: does the tensor core's power depend on the operands? mb_wgmma --burn-rows: the 12 s wgmma
# burn with A's rows from ROWS on zero (as TMA zero-fills a skinny GEMM's tile rows beyond M), against the plain burn,
# interleaved: 64 (plain), 0 (all zero), 16, 64, 0, 32, 64. The in-kernel clock under the 700 W cap tells the power.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
T=$(ls .cache/mbw/mb_wgmma-* | grep -v ptxas | head -1)
for rows in 64 0 16 64 0 32 64; do
  timeout 60 $T --burn-rows 12 $rows >> $OUT/burn_rows.jsonl 2>> $OUT/burn_rows.err; echo "rows $rows rc=$?"
  nvidia-smi --query-gpu=power.draw,clocks.sm,temperature.gpu --format=csv,noheader >> $OUT/smi_after.txt
done
date -u
