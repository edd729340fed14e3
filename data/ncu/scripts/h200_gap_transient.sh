#!/bin/bash
# 2026-11-27 session 22: the H200's own gpu.launch_gap_s and clock.short_power_ratio (its hardware file held the
# H100's: no H200 was lent on 2026-11-25). mb_wgmma --gap 1.5 and --transient through the microbenchmark suite, on an
# H200 only. Usage on the GPU machine: bash data/ncu/scripts/h200_gap_transient.sh
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
grep -q H200 $OUT/gpu.txt || { echo "not an H200"; exit 3; }
date -u
timeout 400 python3 -m perfmodel.microbench --only mb_wgmma --out $OUT/mb --build-dir /tmp/mbb --burn-seconds 0 \
  --idle-seconds 0 --transient --gap-seconds 1.5 > $OUT/mb.log 2>&1; echo "mb rc=$?"
tail -5 $OUT/mb.log; ls $OUT/mb; date -u
