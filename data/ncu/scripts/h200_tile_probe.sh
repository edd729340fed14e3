#!/bin/bash
# 2026-11-26 session 9: the tile probe on an H200 (a CTA's set-up and each warpgroup's epilogue, measured there instead of
# taken as the H100's GH100 copy): tile_probe.sh (normal builds .cache/pmk24 timed in short loops, then the study builds
# .cache/pmk24p under the probe), then tile probe 3's manifest (.cache/pmk25p, both warpgroups) after a short and a long
# loop. Calibration shapes only; the H200's values are recorded, not applied, this session.
set -u
bash data/ncu/scripts/tile_probe.sh; mv $OUT/tile_probe.jsonl $OUT/tile_probe1.jsonl
timeout 60 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/tile_probe3_manifest.json 10 30 > $OUT/probe3_short.log 2>&1
echo "short rc=$?"; mv $OUT/tile_probe.jsonl $OUT/tile_probe3_short.jsonl 2>/dev/null
timeout 200 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/tile_probe3_manifest.json 1500 500 > $OUT/probe3_long.log 2>&1
echo "long rc=$?"; mv $OUT/tile_probe.jsonl $OUT/tile_probe3_long.jsonl 2>/dev/null
wc -l $OUT/*.jsonl; date -u
