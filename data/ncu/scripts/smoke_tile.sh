#!/bin/bash
# 2026-11-26 session 9: why the smoke probe's GPC 0 ran 20-30% slower at 1000x1992x1016 on one H100 card while the tile
# probe's 1024x2048x1024 did not on another: the smoke configurations' study builds (.cache/pmk24p, kernel
# 5138e5f29fa0a359) at the ragged smoke shapes and at whole-tile shapes, each K aligned and not, under the per-CTA probe
# with per-k-block and per-tile samples (smoke_tile_manifest.json), twice. Calibration shapes; probe only.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 120 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/smoke_tile_manifest.json > $OUT/probe.log 2>&1
echo "probe rc=$?"; mv $OUT/tile_probe.jsonl $OUT/smoke_tile.jsonl
timeout 120 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/smoke_tile_manifest.json > $OUT/probe2.log 2>&1
echo "probe2 rc=$?"; mv $OUT/tile_probe.jsonl $OUT/smoke_tile_repeat.jsonl; wc -l $OUT/*.jsonl; date -u
