#!/bin/bash
# 2026-11-27 session 28: mb_tma --l2-residency-pitch (the in-step panel walk over the first 8192 columns of rows pitched
# 8192..24576 bf16, 12-48 MiB read) timed once, then under ncu (one warm-up and one profiled launch each: the second's
# HBM bytes say what the L2 kept): does the L2 keep less at the pitches whose deep L2-paced walks re-read twice the
# bytes? Binary built on the GPU machine. Usage: residency_pitch_ncu.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 200 $T --l2-residency-pitch > $OUT/residency_pitch.jsonl 2> $OUT/residency_pitch.err; echo "residency rc=$?"
timeout 400 ncu --clock-control none --csv --log-file $OUT/residency_pitch_ncu.csv \
  --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum \
  --kernel-name regex:tma_stream_kernel $T --l2-residency-pitch --ncu > $OUT/residency_pitch_profiled.jsonl \
  2> $OUT/ncu.err; echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; date -u
