#!/bin/bash
# 2026-11-26 session 12: mb_tma --oob-land again (a second H100 card, and the H200) (a stage's issue-to-landing cycles with and without zero fill against the
# CTAs streaming; the binary built on the CPU machine, carried in .cache/mbl26), for the zero fill's wait (tma.oob_wait_*).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
T=$(ls .cache/mbl26/mb_tma-* | grep -v ptxas | head -1)
timeout 300 $T --oob-land > $OUT/${G}_oob_land.jsonl 2> $OUT/oob_land.err; echo "oob-land rc=$?"
wc -l $OUT/*.jsonl; tail -3 $OUT/oob_land.err; date -u
