#!/bin/bash
# 2026-11-27 session 30: the one-warpgroup direct-store tile at 8192^3 runs 13-17% slower than predicted in its timed
# loops while a lone launch does not (docs/model.md, data/ncu/edir_probe); at N = 8000 (a 16000-byte output pitch) the
# two agree. Hypothesis: at a power-of-two pitch the direct stores' partial sectors leave the L2 before they are whole
# and are written back by read-modify-write, or the next launch finds the L2 full of the last one's dirty output.
# Expectation written before the run: in the warm (no flush, after 4 launches) ncu launch the direct-store builds at
# 8192^3 read from HBM more than their flushed launch and more than the TMA-store twin, by a share of the output's
# 128 MiB, and take longer than their flushed launch; at N = 8000 and at 4096^3 not, or much less. If the warm and
# flushed launches read alike, the hypothesis fails.
# Usage on the GPU machine: bash data/ncu/scripts/edir_rmw.sh
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 data/ncu/scripts/build_probe.py data/ncu/scripts/edir_rmw.txt $OUT/manifest.json .cache/pmk30e --normal \
  > $OUT/build.log 2>&1; echo "build rc=$?"; date -u
timeout 480 python3 data/ncu/scripts/edir_rmw_ncu.py $OUT $OUT/manifest.json > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; wc -l $OUT/*.jsonl; date -u
