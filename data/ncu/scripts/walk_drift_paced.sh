#!/bin/bash
# 2026-11-27 session 28: mb_tma --walk-drift-paced (the whole-grid 128x128 walks of 8192^3, 4096x4096x32768 and
# 9216x4096x11008 bf16 at 4 / 5 / 6 stages, each stage held the MMAs' time less the walk's own cycles, and not held),
# timed twice and then under ncu (HBM bytes, L2 sectors, the coalescer's merge) on the named card: do whole-grid walks
# that the L2 paces, not their consumer, drift apart and re-read more with ring depth, as our GEMM does on the H200?
# Binary built on the GPU machine. Usage: walk_drift_paced.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 150 $T --walk-drift-paced > $OUT/walk.jsonl 2> $OUT/walk.err; echo "walk rc=$?"
timeout 150 $T --walk-drift-paced > $OUT/walk_repeat.jsonl 2> $OUT/walk_repeat.err; echo "walk repeat rc=$?"
timeout 300 ncu --clock-control none --csv --log-file $OUT/walk_ncu.csv \
  --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,gpu__time_duration.sum \
  $T --walk-drift-paced --ncu > $OUT/walk_profiled.jsonl 2> $OUT/ncu.err; echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; date -u
