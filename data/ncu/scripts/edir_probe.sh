#!/bin/bash
# 2026-11-26 session 13: the 128x128 tile with one consumer warpgroup and direct stores runs 17% below its TMA-store twin
# at 8192^3 (the model: 2%), while the tile probe timed its epilogue at the model's rate at N = 1408. Study builds
# (build_probe.py from edir_probe.txt): per tile the first warpgroup's mainloop and epilogue ends, at output row pitches
# of 16 KB (N = 8192), 8 KB, 4 KB, 2816 B (N = 1408) and 16000 B (N = 8000), short loops.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 data/ncu/scripts/build_probe.py data/ncu/scripts/edir_probe.txt $OUT/manifest.json .cache/pmk28p > $OUT/build.log 2>&1
echo "build rc=$?"; date -u
timeout 240 python3 data/ncu/scripts/tile_probe.py $OUT $OUT/manifest.json 10 30 > $OUT/probe.log 2>&1
echo "probe rc=$?"; gzip -9 $OUT/tile_probe.jsonl; ls -la $OUT; date -u
