#!/bin/bash
# 2026-11-27 session 29: mb_pitch --lag with the blocks' finishing times (new fields block_end_*), twice; --lag --fine
# (lags 0 and 12, every pitch of 4-64 KB in 128-byte steps) once; --window once.
# The first --lag run (data/microbench/window_pitch3_h100, H100 card 1752624024370): the lagging reads miss at the same
# lag at every pitch (ncu: 1.34-1.41x the bytes at lag 8, 1.60-1.73x at 12, packed 1.40 / 1.72), so the pitch does not
# decide how far behind a sharer may fall. But reading each row's k-blocks in turn, all rows at once (the GEMM's order
# at HBM), is slower at the walk's bad pitches even at lag 0 (bf16 11008 76 us, 22016 75, 15872 75, 16896 75 against
# 8192 / 9216 71, 16384 73; the per-pitch time correlates 0.57 with the 6-stage paced walk's HBM bytes on both H100
# cards, 0.15 with the H200's).
# Expectation written before this run: on another H100 the lag-0 times repeat pitch by pitch (correlation >= 0.7 with
# window_pitch3_h100), and the blocks finish less evenly at the slow pitches (block_end_p10 lower). On the H200 the
# slow pitches differ from the H100's, and bf16 16384 and 32768 (32 and 64 KB rows, where the H200's GEMM loses at
# 9216x4096x16384 21-30% and at 4096x4096x32768 34%) are among its slow ones.
# Outputs in one tarball. Binary built on the GPU machine. Usage: lag_pitch.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_pitch "${1:-H}"
mkdir -p $OUT/w
timeout 120 $T --lag > $OUT/w/lag_pitch.jsonl 2> $OUT/w/lag_pitch.err; echo "lag rc=$?"
timeout 120 $T --lag > $OUT/w/lag_pitch_repeat.jsonl 2> $OUT/w/lag_pitch_repeat.err; echo "repeat rc=$?"
timeout 120 $T --lag --fine > $OUT/w/lag_pitch_fine.jsonl 2> $OUT/w/lag_pitch_fine.err; echo "fine rc=$?"
timeout 120 $T --window > $OUT/w/window_pitch.jsonl 2> $OUT/w/window_pitch.err; echo "window rc=$?"
wc -l $OUT/w/*.jsonl; date -u
tar -C $OUT -czf $OUT/lag_pitch.tar.gz w && rm -rf $OUT/w
