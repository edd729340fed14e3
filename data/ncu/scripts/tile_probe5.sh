#!/bin/bash
# 2026-11-26 session 9: whose is the tile switch's restart? Tile probe 4 found the next tile's first stage in 0.5-1 us after
# the epilogue ends. Study builds of kernel d5946ed637c1a372 (.cache/pmk27p; normal builds' cubin identical to
# 76a174cac980a28d's) record, per tile of the first 8 and per consumer warpgroup: when the warpgroup was ready to wait for
# the tile's first stage (accumulators zeroed), when that stage's data were in, the mainloop's end and the epilogue's end.
# tile_probe5_manifest.json (tile probe 3's configurations, calibration shapes), after a short loop and after a long one
# (the power-capped clock).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 60 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/tile_probe5_manifest.json 10 30 > $OUT/probe_short.log 2>&1
echo "short rc=$?"; mv $OUT/tile_probe.jsonl $OUT/tile_probe5_short.jsonl
timeout 200 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/tile_probe5_manifest.json 1500 500 > $OUT/probe_long.log 2>&1
echo "long rc=$?"; mv $OUT/tile_probe.jsonl $OUT/tile_probe5_long.jsonl
wc -l $OUT/*.jsonl; date -u
