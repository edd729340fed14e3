#!/bin/bash
# 2026-11-27 session 29: mb_pitch --window with its loop fixed (four loads in flight, no division: the second version
# read packed lines at only 3.1-3.7 TB/s, so its own loop set the rate), once; then mb_pitch --lag (new) twice and
# --lag --ncu under ncu (the lagging reads' HBM bytes at ten pitches).
# The second version under ncu (data/microbench/window_pitch2_h100): with the L2 flushed before the launch, windows of 8
# lines (16 MiB) are kept whole at every pitch; 16 lines (32 MiB) re-read 1.6-1.9x their bytes at every pitch against
# 1.12x packed; the walk's worst pitch (22016 bytes) is no worse there than its good ones (32768 the most).
# Expectation written before this run: if the pitch decides how far behind a sharer may fall before its lines are gone,
# then at some lag (8-20 k-blocks) the lagging reads miss at the walk's worst pitches (bf16 11008, 22016, 16896, 15872,
# 27136) and hit at 8192, 9216, 16384, 24576, 32768, and the per-pitch HBM bytes correlate positively with the 6-stage
# paced walk's (data/ncu/walk_pitch_fine_h100). If every pitch misses at the same lag, the pitch acts elsewhere.
# Outputs in one tarball (a device call returns at most 8 files). Binary built on the GPU machine.
# Usage: window_pitch3.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_pitch "${1:-H}"
mkdir -p $OUT/w
timeout 120 $T --window > $OUT/w/window_pitch.jsonl 2> $OUT/w/window_pitch.err; echo "window rc=$?"
timeout 120 $T --lag > $OUT/w/lag_pitch.jsonl 2> $OUT/w/lag_pitch.err; echo "lag rc=$?"
timeout 120 $T --lag > $OUT/w/lag_pitch_repeat.jsonl 2> $OUT/w/lag_pitch_repeat.err; echo "repeat rc=$?"
timeout 200 ncu --clock-control none --csv --log-file $OUT/w/lag_pitch_ncu.csv --kernel-name lag_kernel \
  --metrics lts__t_sector_hit_rate.pct,dram__bytes_read.sum,gpu__time_duration.sum \
  $T --lag --ncu > $OUT/w/lag_pitch_profiled.jsonl 2> $OUT/w/ncu.err; echo "ncu rc=$?"
wc -l $OUT/w/*.jsonl; date -u
tar -C $OUT -czf $OUT/window_pitch3.tar.gz w && rm -rf $OUT/w
