#!/bin/bash
# 2026-11-27 session 28: mb_tma --walk-pitch --paced (the whole-grid 128x128 walk of 8192x8192 over the first 8192
# columns of rows pitched 8192..24576 bf16, 3 / 4 / 6 stages, the whole grid and 4 tiles a CTA, each stage held the
# MMAs' time less the walk's own cycles so that the L2 paces it), timed twice and under ncu: does the row pitch of
# 9216x4096x11008 and its neighbours (20-22.5 KB) slow a deep L2-paced ring where 16 KB does not?
# Binary built on the GPU machine. Usage: walk_pitch_paced.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 150 $T --walk-pitch --paced > $OUT/walk_pitch.jsonl 2> $OUT/walk_pitch.err; echo "walk rc=$?"
timeout 150 $T --walk-pitch --paced > $OUT/walk_pitch_repeat.jsonl 2> $OUT/walk_pitch_repeat.err; echo "walk repeat rc=$?"
timeout 300 ncu --clock-control none --csv --log-file $OUT/walk_pitch_ncu.csv \
  --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,gpu__time_duration.sum \
  --kernel-name regex:tma_gemm_walk_kernel $T --walk-pitch --paced --ncu > $OUT/walk_pitch_profiled.jsonl 2> $OUT/ncu.err; echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; date -u
