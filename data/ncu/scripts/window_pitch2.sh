#!/bin/bash
# 2026-11-27 session 29: mb_pitch --window, second version (64 warm passes, so the launch no longer sets the rate;
# windows of 2-24 lines; each window also packed, the same lines contiguous), twice at 512-byte pitch steps 16-64 KB,
# once at 128-byte steps 16-32 KB (--fine), then --ncu (ten pitches, windows of 8/16/24 lines) under ncu for the L2's
# hit rate and HBM bytes of the cold and warm launches.
# The first version (window_pitch.sh, data/microbench/window_pitch_h100) ran 8 warm passes: 1.4-3.4 TB/s, far below the
# packed L2 rate, and its per-pitch rate at 8-24 lines correlated -0.42..-0.52 with the 6-stage paced walk's HBM bytes
# on both H100 cards (about 0 with the H200's walk). Expectation written before this run: the packed windows read at
# L2 speed (>= 6 TB/s) up to 32 MiB; the pitched windows read slower at every pitch (the rows' lines crowd the L2's
# sets or its TLBs), and ncu says which: an L2 hit rate near 100% at 8 lines with a low rate means not the L2's sets.
# Binary built on the GPU machine. Usage: window_pitch2.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_pitch "${1:-H}"
timeout 120 $T --window > $OUT/window_pitch.jsonl 2> $OUT/window_pitch.err; echo "window rc=$?"
timeout 120 $T --window > $OUT/window_pitch_repeat.jsonl 2> $OUT/window_pitch_repeat.err; echo "repeat rc=$?"
timeout 120 $T --window --fine > $OUT/window_pitch_fine.jsonl 2> $OUT/window_pitch_fine.err; echo "fine rc=$?"
timeout 200 ncu --clock-control none --csv --log-file $OUT/window_pitch_ncu.csv --kernel-name window_kernel \
  --metrics lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_sectors_srcunit_tex.sum,gpu__time_duration.sum \
  $T --window --ncu > $OUT/window_pitch_profiled.jsonl 2> $OUT/ncu.err; echo "ncu rc=$?"
gzip -9 $OUT/window_pitch_ncu.csv
wc -l $OUT/*.jsonl; date -u
