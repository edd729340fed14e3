#!/bin/bash
# 2026-11-26 session 13: where the fresh calibration set's worst points lose their time (h100_calib27: 160x3584x14336
# +22-40% for the 128x128, 64x256 and 64x128 tiles, right for 128x256; 96x18432x7168 -17-22%; 9216x4096x11008 128x128 at 6
# stages +50%, at 4 +13%; 768x18176x4544 128x128 at 6 stages -15%). Study builds (progress samples, built here by
# build_probe.py from calib27_probe.txt into .cache/pmk28p) after a short loop and after a long one (the power-capped clock):
# per CTA its SM, start and ends, the producer's per-k-block issue times, the first warpgroup's tile ends.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 data/ncu/scripts/build_probe.py data/ncu/scripts/calib27_probe.txt $OUT/manifest.json .cache/pmk28p > $OUT/build.log 2>&1
echo "build rc=$?"; date -u
timeout 120 python3 data/ncu/scripts/tile_probe.py $OUT $OUT/manifest.json 10 30 > $OUT/probe_short.log 2>&1
echo "short rc=$?"; mv $OUT/tile_probe.jsonl $OUT/calib27_probe_short.jsonl
timeout 240 python3 data/ncu/scripts/tile_probe.py $OUT $OUT/manifest.json 1500 500 > $OUT/probe_long.log 2>&1
echo "long rc=$?"; mv $OUT/tile_probe.jsonl $OUT/calib27_probe_long.jsonl
wc -l $OUT/*.jsonl; date -u
