#!/bin/bash
# 2026-11-28 session 31: 2-stage rings of 256-byte k-block rows run 20-55% below the model and 2-3x slower a byte than
# their 128-byte twins (h100_calib47, h100_calib48), on the H100 and the H200 alike.
# Expectation written before the run: if the wide rows are slow for the L2 (its slices or the request coalescer), then
# per FLOP the 128x256x128 2-stage launch asks the L2 for more sectors, or the coalescer merges fewer (xbar2gpc /
# lts2lrc nearer 1), or the L2's throughput is higher than in the 128x256x64 2-stage launch; if the L2 serves both
# alike per FLOP with a lower throughput (it waits on the SMs), the cause is on the SM side (the TMA unit or the
# barrier), not the L2.
# Usage on the GPU machine: bash data/ncu/scripts/wide_k.sh
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 data/ncu/scripts/build_probe.py data/ncu/scripts/wide_k.txt $OUT/manifest.json .cache/pmk31w --normal \
  > $OUT/build.log 2>&1; echo "build rc=$?"; date -u
timeout 420 python3 data/ncu/scripts/wide_k_ncu.py $OUT $OUT/manifest.json > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; wc -l $OUT/*.jsonl; date -u
