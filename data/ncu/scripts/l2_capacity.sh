#!/bin/bash
# 2026-11-27 session 23: mb_memory with l2_partition_bw's working sets grown to 56 and 64 MiB (past the H100's 50 MB,
# within and past the H200's 60 MB): does the H200 keep more resident than the H100? mb_memory built on the GPU machine.
# Usage: bash data/ncu/scripts/l2_capacity.sh
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 400 python3 -m perfmodel.microbench --only mb_memory --out $OUT/mb --build-dir /tmp/mbb --burn-seconds 0 \
  --idle-seconds 0 --no-transient > $OUT/mb.log 2>&1; echo "mb rc=$?"
ls $OUT/mb* ; date -u
