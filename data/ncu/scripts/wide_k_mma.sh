#!/bin/bash
# 2026-11-28 session 31: mb_tma --wide-k-mma (new): which part of the MMAs slows our GEMM's 2-stage rings of 256-byte
# k-block rows? The GEMM at 8192^3 bf16 on an H100 (kernel clock, 2-stage rings): 128x128x64 1413 cycles a stage,
# 128x256x64 1612, 128x128x128 2797, 128x256x128 4083; the load-only walk (--wide-k, lag 1, data/microbench/
# wide_k_walk_h100) 1331 / 1580 and 1888-2039 / 2448-2535. The new walk is that ring (lag 1, 132 CTAs over the whole
# grid in pm8 order) with REAL wgmma in two consumer warpgroups (the GEMM's batch: 4 kb k-steps of m64n<tile_n>k16
# bf16 SS, its descriptors, commit, wait_group 1, free the previous stage; no epilogue), loads on, or off (the producer
# loads the first round and then only arrives: the batches alone on the same layout). Tensor time a stage at 4096
# FLOP/clk/SM: 512 / 1024 (128x128 / 128x256, kb = 1), 1024 / 2048 (kb = 2). wait: cycles in wait_group 1 a stage.
# Expectation written before the run. Check first: loads on, kb = 1, 2 stages lands near the GEMM's 1413 / 1612
# (within ~10%) and kb = 2 near its 2797 / 4083 (within ~15%); if kb = 2 stays near the load-only walk's ~1950 / ~2500
# instead, the MMAs as such do not slow the ring and the cause is elsewhere in the GEMM (epilogue, registers: (c)).
# If the slowdown is reproduced:
#  (a) the batch itself: loads off, kb = 2 takes clearly more than its tensor time (> ~1.15x: > ~1180 / ~2350) and
#      more than twice its kb = 1 twin, near the loads-on figure; loads on shows large wait cycles (the previous batch
#      still running when the next stage lands).
#  (b) shared-memory port contention: loads off, kb = 2 runs at about its tensor time (~1024-1150 / ~2048-2300, as
#      kb = 1 does at ~512 / ~1024), while loads on is slow with land cycles near its cycles a stage (the stage in
#      flight fills slower than the load-only walk's 1800-1950 / 2350-2440) and small wait cycles.
#  (c) neither pattern (e.g. loads off fast and loads on slow with large wait cycles, or both near the walk).
# 3-stage rows (128x256x64, 128x128x128) say whether a deeper ring hides it. A same-card baseline: --wide-k once and
# the four GEMMs (timing builds, 2 stages) run by their binaries (time.median_ms, kernel clock).
# Binary built on the GPU machine. Usage: wide_k_mma.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 120 $T --wide-k-mma > $OUT/wide_k_mma.jsonl 2>> $OUT/run.log; echo "mma rc=$?"
timeout 120 $T --wide-k-mma > $OUT/wide_k_mma_repeat.jsonl 2>> $OUT/run.log; echo "mma repeat rc=$?"
timeout 120 $T --wide-k > $OUT/wide_k_walk.jsonl 2>> $OUT/run.log; echo "walk rc=$?"
date -u
sed -n 3,6p data/ncu/scripts/wide_k.txt > /tmp/wide_k_mma_gemms.txt   # the four 2-stage sw128 GEMMs
timeout 150 python3 data/ncu/scripts/build_probe.py /tmp/wide_k_mma_gemms.txt /tmp/wkm_manifest.json .cache/pmk31m \
  --normal >> $OUT/build.log 2>&1; echo "gemm build rc=$?"
python3 data/ncu/scripts/time_gemms.py /tmp/wkm_manifest.json $OUT/gemm.jsonl >> $OUT/run.log 2>&1
echo "gemm rc=$?"; wc -l $OUT/*.jsonl; date -u
