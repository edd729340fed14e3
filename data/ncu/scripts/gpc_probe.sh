#!/bin/bash
# 2026-11-25 session 4 (fourth version: the third's benches after the host-side refactor, one skinny_ring and one launch config): mb_tma --gpc-probe (which SMs a grid lands on, which SMs share a GPC, the skinny ring on one
# GPC's SMs against SMs spread over the GPCs) and --skinny-abox on the same card for reference.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
T=$(ls .cache/mbg4/mb_tma-* | grep -v ptxas | head -1)
timeout 120 $T --gpc-probe > $OUT/gpc.jsonl 2> $OUT/gpc.err; echo "gpc rc=$?"
timeout 120 $T --skinny-abox > $OUT/abox.jsonl 2> $OUT/abox.err; echo "abox rc=$?"
wc -l $OUT/*.jsonl; tail -3 $OUT/gpc.err; date -u
