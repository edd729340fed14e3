#!/bin/bash
# 2026-11-26 session 16: mb_stream --launch-clusters (what a launch of clusters of 1 / 2 / 4 CTAs adds, timed as our
# harness times: an event pair around every launch, back to back), twice. Binary built on the GPU machine.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 -m perfmodel.microbench --only mb_stream --build-only --build-dir /tmp/mbb > $OUT/build.log 2>&1; echo "build rc=$?"
T=$(ls /tmp/mbb/mb_stream-* | grep -v ptxas | head -1)
timeout 200 $T --launch-clusters > $OUT/launch_clusters.jsonl 2> $OUT/launch_clusters.err; echo "run rc=$?"
timeout 200 $T --launch-clusters > $OUT/launch_clusters_repeat.jsonl 2> $OUT/launch_clusters_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
