#!/bin/bash
# 2026-11-26 session 18: mb_tma --walk-drift (the GEMM walk over the whole tile grid of 8192^3 and 4096x4096x32768 bf16,
# 128x128 at 4 / 6 stages and 64x256 at 4 / 5, a consumer holding each stage the tile's tensor-core time), timed twice
# and then under ncu (HBM bytes, L2 sectors, the coalescer's merge) on the named card: do CTAs that walk as long as the
# GEMM's drift apart, and more on the H200? Since the eighteenth session's second run it also walks 8192^3 with consumers
# that read each stage from shared memory (tma_walk_drift_smem). Binary built on the GPU machine.
# Usage: walk_drift.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 150 $T --walk-drift > $OUT/walk.jsonl 2> $OUT/walk.err; echo "walk rc=$?"
timeout 150 $T --walk-drift > $OUT/walk_repeat.jsonl 2> $OUT/walk_repeat.err; echo "walk repeat rc=$?"
timeout 300 ncu --clock-control none --csv --log-file $OUT/walk_ncu.csv \
  --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,gpu__time_duration.sum \
  $T --walk-drift --ncu > $OUT/walk_profiled.jsonl 2> $OUT/ncu.err; echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; date -u
