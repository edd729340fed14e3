#!/bin/bash
# Sourced by the mb_tma run scripts of the eighteenth session (l2_residency_fine.sh, lrc_gemm_walk.sh, walk_drift.sh):
# records the card in $OUT/gpu.txt, exits 3 unless its name contains $1 (H100, H200; default any "H"), and builds mb_tma
# on the GPU machine into /tmp/mbb, leaving its path in T.
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
grep -q "${1:-H}" $OUT/gpu.txt || { echo "not a ${1} card"; exit 3; }
date -u
python3 -m perfmodel.microbench --only mb_tma --build-only --build-dir /tmp/mbb > $OUT/build.log 2>&1; echo "build rc=$?"
T=$(ls /tmp/mbb/mb_tma-* | grep -v ptxas | head -1)
