#!/bin/bash
# 2026-11-27 session 28: mb_tma --walk-pitch --paced --fine (the L2-paced whole-grid 128x128 walk of 8192x8192 over the
# first 8192 columns of rows pitched 8192..32768 bf16 in steps of 256, 4 and 6 stages), timed once and under ncu (HBM
# bytes only): which pitches make the deep rings re-read, on this GPU? Binary built on the GPU machine.
# Usage: walk_pitch_fine.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 200 $T --walk-pitch --paced --fine > $OUT/walk_pitch_fine.jsonl 2> $OUT/walk_pitch_fine.err; echo "walk rc=$?"
timeout 400 ncu --clock-control none --csv --log-file $OUT/walk_pitch_fine_ncu.csv \
  --metrics dram__bytes_read.sum,gpu__time_duration.sum --kernel-name regex:tma_gemm_walk_kernel \
  $T --walk-pitch --paced --fine --ncu > $OUT/walk_pitch_fine_profiled.jsonl 2> $OUT/ncu.err; echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; date -u
