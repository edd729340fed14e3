#!/bin/bash
# 2026-11-26 session 9: the tile probe with both consumer warpgroups' per-tile mainloop and epilogue ends (study builds of
# kernel 7a059b88693d3b79 in .cache/pmk25p; normal builds' cubin identical to 76a174cac980a28d's), many tiles per CTA
# (calibration shapes, tile_probe3_manifest.json): first after a short loop (10 ms warm-up, 30 ms), then after a long
# one (1500 ms warm-up, 500 ms) that brings the kernel to its power-capped clock. Does one warpgroup's epilogue overlap
# the other's next mainloop, at the boost and at the capped clock?
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 60 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/tile_probe3_manifest.json 10 30 > $OUT/probe_short.log 2>&1
echo "short rc=$?"; mv $OUT/tile_probe.jsonl $OUT/tile_probe3_short.jsonl
timeout 200 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/tile_probe3_manifest.json 1500 500 > $OUT/probe_long.log 2>&1
echo "long rc=$?"; mv $OUT/tile_probe.jsonl $OUT/tile_probe3_long.jsonl
wc -l $OUT/*.jsonl; date -u
