#!/bin/bash
# 2026-11-27 session 28: mb_tma --walk-drift-paced --epi (the L2-paced whole-grid 128x128 walks at 4 / 5 / 6 stages,
# without and with a 3000-cycle stop of the consumer after each tile, as our GEMM's epilogue stops its MMAs while the
# producer refills the ring), timed twice and under ncu: does the epilogue's stop make the deep rings re-read more, as
# our GEMM's do on the H200? Binary built on the GPU machine. Usage: walk_drift_epi.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 150 $T --walk-drift-paced --epi > $OUT/walk.jsonl 2> $OUT/walk.err; echo "walk rc=$?"
timeout 300 ncu --clock-control none --csv --log-file $OUT/walk_ncu.csv \
  --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,gpu__time_duration.sum \
  --kernel-name regex:tma_gemm_walk_kernel $T --walk-drift-paced --epi --ncu > $OUT/walk_profiled.jsonl 2> $OUT/ncu.err
echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; date -u
