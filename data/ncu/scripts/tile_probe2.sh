#!/bin/bash
# 2026-11-26 session 9: the tile probe on calibration shapes with many tiles per CTA (4096x16384x2048, 3072x7168x2048 fp8 and
# bf16, 8192^3 bf16; 6144x2816x2048 fp8 again as the link to tile_probe.sh): is the per-tile period the mainloop plus the
# measured epilogue? Study builds of .cache/pmk24p (kernel 5138e5f29fa0a359), tile_probe2_manifest.json, twice.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
for i in 1 2; do
  timeout 100 python3 data/ncu/scripts/tile_probe.py $OUT data/ncu/scripts/tile_probe2_manifest.json > $OUT/probe$i.log 2>&1
  echo "probe$i rc=$?"; mv $OUT/tile_probe.jsonl $OUT/tile_probe2_$i.jsonl
done
wc -l $OUT/*.jsonl; date -u
