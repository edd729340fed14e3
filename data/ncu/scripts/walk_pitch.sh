#!/bin/bash
# 2026-11-27 session 25: mb_tma --walk-pitch (the 8192x8192 GEMM walk, 128x128 tiles, over the first 8192 columns of
# rows whose pitch is 8192..24576 bf16; whole grid and 4 tiles a CTA; 3 / 4 / 6 stages), timed twice and then under
# ncu (HBM bytes, the L2's sectors and hits, time) on the named card: does the row pitch alone, not K, slow the walk?
# Binary built on the GPU machine. Usage: walk_pitch.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 150 $T --walk-pitch > $OUT/walk_pitch.jsonl 2> $OUT/walk_pitch.err; echo "walk rc=$?"
timeout 150 $T --walk-pitch > $OUT/walk_pitch_repeat.jsonl 2> $OUT/walk_pitch_repeat.err; echo "walk repeat rc=$?"
timeout 300 ncu --clock-control none --csv --log-file $OUT/walk_pitch_ncu.csv \
  --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric.sum,gpu__time_duration.sum \
  --kernel-name regex:tma_gemm_walk_kernel $T --walk-pitch --ncu > $OUT/walk_pitch_profiled.jsonl 2> $OUT/ncu.err; echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; date -u
