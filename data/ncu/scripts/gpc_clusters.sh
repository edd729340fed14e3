#!/bin/bash
# 2026-11-25 session 4: mb_tma --gpc-probe with the SMs of partial grids of clusters of 2 and 4 CTAs too.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
T=$(ls .cache/mbg5/mb_tma-* | grep -v ptxas | head -1)
timeout 120 $T --gpc-probe > $OUT/gpc.jsonl 2> $OUT/gpc.err; echo "gpc rc=$?"
wc -l $OUT/*.jsonl; date -u
