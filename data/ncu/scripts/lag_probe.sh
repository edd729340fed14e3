#!/bin/bash
# 2026-11-26 session 7: how far apart the CTAs of one launch drift along their run (kernel d87095e591b54702: the
# per-CTA probe also samples the producer's progress, 192 times a run) on calibration shapes: 4096x4096 with K 8192 /
# 32768 / 49152 and 8192^3, 16384x10240x8192, tensor-bound 128x256 against L2-bound 128x128 (s4, s6) and 64x256.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 300 python3 data/ncu/scripts/cta_spread.py $OUT/lag_probe.jsonl data/ncu/scripts/lag_manifest.json > $OUT/lag.log 2>&1
echo "lag rc=$?"; wc -l $OUT/*.jsonl; ls -la $OUT; date -u
