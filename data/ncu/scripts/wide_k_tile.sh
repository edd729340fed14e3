#!/bin/bash
# 2026-11-28 session 32: where does our GEMM lose the 15-20% that the lag-1 wgmma walk (mb_tma --wide-k-mma,
# data/microbench/wide_k_mma_h100) does not reproduce for 2-stage rings of 256-byte k-block rows? At 8192^3 bf16 on an
# H100 the walk runs 3340-3481 cycles a stage (128x256x128) and 2355-2402 (128x128x128) where the GEMM runs 4018 and
# 2710 (time x kernel clock / (16 or 32 tiles x k-blocks)); with 128-byte rows the GEMM is 4-6% faster than the walk.
# The study builds (progress samples) of wide_k.txt's eight 8192^3 configurations, short loops (10 ms / 30 ms), 4 probed
# launches: the producer's issue time of every interval-th k-block, and each consumer warpgroup's first 8 tiles
# (ready, first stage in, mainloop end, epilogue end).
# Expectation written before the run:
#  (m) the mainloop: the steady pace inside a tile (producer samples within a tile, or mainloop span / k-blocks) is near
#      the GEMM's per-stage figure (128x256x128 s2 > ~3800 cycles, 128x128x128 s2 > ~2550): the walk lacks something
#      of the GEMM's mainloop (its registers, its accumulators, the wgmma it issues);
#  (t) the tile boundary: the pace inside a tile is near the walk's (~3400 / ~2380) and each tile adds tens of
#      thousands of cycles (>= 15% of a 64-k-block tile: > ~33000 / ~23000 cycles) between its mainloop end and the
#      next tile's steady pace (epilogue, the ring's restart);
#  neither: both within ~5% of the walk, and the gap is in the timing loop (clock, launch) rather than the kernel.
# 128-byte twins (128x256x64, 128x128x64 s2) and 3-stage rows are the same figures' controls.
# Usage on the GPU machine: bash data/ncu/scripts/wide_k_tile.sh
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 200 python3 data/ncu/scripts/build_probe.py data/ncu/scripts/wide_k.txt $OUT/manifest.json .cache/pmk32p \
  > $OUT/build.log 2>&1; echo "build rc=$?"; date -u
timeout 200 python3 data/ncu/scripts/tile_probe.py $OUT $OUT/manifest.json 10 30 > $OUT/probe.log 2>&1
echo "probe rc=$?"; mv $OUT/tile_probe.jsonl $OUT/wide_k_tile.jsonl
timeout 200 python3 data/ncu/scripts/tile_probe.py $OUT $OUT/manifest.json 10 30 > $OUT/probe2.log 2>&1
echo "probe2 rc=$?"; mv $OUT/tile_probe.jsonl $OUT/wide_k_tile_repeat.jsonl
xz -9 $OUT/*.jsonl; ls -la $OUT; date -u
