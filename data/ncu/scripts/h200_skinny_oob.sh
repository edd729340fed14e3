#!/bin/bash
# 2026-11-26 session 16: mb_tma --skinny-oob on an H200 (its own tma.oob_l2_cost: the L2 time a zero-fill byte takes
# against an in-bounds one; the hardware file had the H100's). Binary built on the GPU machine.
set -u
grep -q H200 <(nvidia-smi --query-gpu=name --format=csv,noheader) || exit 3
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 -m perfmodel.microbench --only mb_tma --build-only --build-dir /tmp/mbb > $OUT/build.log 2>&1; echo "build rc=$?"
T=$(ls /tmp/mbb/mb_tma-* | grep -v ptxas | head -1)
timeout 400 $T --skinny-oob > $OUT/oob.jsonl 2> $OUT/oob.err; echo "oob rc=$?"
wc -l $OUT/*.jsonl; date -u
