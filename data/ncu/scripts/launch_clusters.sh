#!/bin/bash
# 2026-11-26 session 16: mb_stream --launch-clusters (what a launch of clusters of 1 / 2 / 4 CTAs adds, timed as our
# harness times: an event pair around every launch, back to back), twice. Binary built on the GPU machine.
set -u
source data/ncu/scripts/mb_on_card.sh mb_stream
timeout 200 $T --launch-clusters > $OUT/launch_clusters.jsonl 2> $OUT/launch_clusters.err; echo "run rc=$?"
timeout 200 $T --launch-clusters > $OUT/launch_clusters_repeat.jsonl 2> $OUT/launch_clusters_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
