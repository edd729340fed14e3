#!/bin/bash
# 2026-11-25 session 3: mb_tma --skinny-abox (the skinny ring with and without its A box), then --panel-only and
# --skinny-ctas on the same card for comparison.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
T=$(ls .cache/abox/mb_tma-* | grep -v ptxas | head -1)
timeout 120 $T --skinny-abox > $OUT/abox.jsonl 2> $OUT/abox.err; echo "abox rc=$?"
timeout 200 $T --panel-only > $OUT/panel.jsonl 2> $OUT/panel.err; echo "panel rc=$?"
wc -l $OUT/*.jsonl; date -u
