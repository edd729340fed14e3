#!/bin/bash
# 2026-11-26 session 9: the tile probes on an H200 (a CTA's set-up and each warpgroup's epilogue, measured there instead of
# taken as the H100's GH100 copy): the study builds of tile_probe_manifest.json (.cache/pmk24p) in short loops, then
# tile probe 3's manifest (.cache/pmk25p, both warpgroups) after a short and a long loop. Probe only (the normal builds'
# timings would not fit the carry limit). Calibration shapes only; the H200's values are recorded, not applied, this
# session.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 200 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/tile_probe_manifest.json > $OUT/probe1.log 2>&1
echo "probe1 rc=$?"; mv $OUT/tile_probe.jsonl $OUT/tile_probe1.jsonl
timeout 60 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/tile_probe3_manifest.json 10 30 > $OUT/probe3_short.log 2>&1
echo "short rc=$?"; mv $OUT/tile_probe.jsonl $OUT/tile_probe3_short.jsonl
timeout 200 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/tile_probe3_manifest.json 1500 500 > $OUT/probe3_long.log 2>&1
echo "long rc=$?"; mv $OUT/tile_probe.jsonl $OUT/tile_probe3_long.jsonl
wc -l $OUT/*.jsonl; date -u
