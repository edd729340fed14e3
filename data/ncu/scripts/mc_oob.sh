#!/bin/bash
# 2026-11-26 session 17: mb_tma --mc-oob twice (the second run's records are the repeat): clusters of 2 whose 256-row A
# box is multicast in two 128-row slices (our 256x128 tile at 1x2) or loaded whole by each CTA, with A's rows in bounds
# 256 / 192 / 128 / 64 / 16 (a dead slice at 128 and below). Binary built on the GPU machine.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 -m perfmodel.microbench --only mb_tma --build-only --build-dir /tmp/mbb > $OUT/build.log 2>&1; echo "build rc=$?"
T=$(ls /tmp/mbb/mb_tma-* | grep -v ptxas | head -1)
timeout 250 $T --mc-oob > $OUT/mc_oob.jsonl 2> $OUT/mc_oob.err; echo "run rc=$?"
timeout 250 $T --mc-oob > $OUT/mc_oob_repeat.jsonl 2> $OUT/mc_oob_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; tail -3 $OUT/mc_oob.err; date -u
