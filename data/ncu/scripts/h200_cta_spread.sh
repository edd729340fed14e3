#!/bin/bash
# 2026-11-26 session 6: on an H200 if the lent machine is one, the GPC map of the card (mb_tma --gpc-probe) and then our
# GEMM's per-CTA placement and times (harness --cta-probe, the same 18 calibration-shape runs as on the H100), so that
# the cluster-launch placement law can be checked on the H200 with that card's own GPCs.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
T=$(ls .cache/mbg5/mb_tma-* | grep -v ptxas | head -1)
timeout 120 $T --gpc-probe > $OUT/gpc.jsonl 2> $OUT/gpc.err; echo "gpc rc=$?"
timeout 200 python3 data/ncu/scripts/cta_spread.py $OUT/cta_spread.jsonl > $OUT/cta_spread.log 2>&1; echo "cta rc=$?"
wc -l $OUT/*.jsonl; date -u
