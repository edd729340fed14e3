#!/bin/bash
# 2026-11-27 session 29: mb_pitch --window (new): does the L2 keep less of a narrow column window (W 128-byte lines of
# each of 16384 rows, 2-48 MiB) at some row pitches? Run twice at 512-byte pitch steps 16-64 KB (the paced walks'
# sweep), then once at 128-byte steps 16-32 KB (--fine).
# Expectation written before the run: if the L2's set index crowds r x pitch at some pitches (the mechanism proposed
# for the H100's jagged out-of-step pitches), then on the H100 the warm re-read rate at 12-16 lines (24-32 MiB) falls
# to HBM speed earlier at the walks' worst pitches (bf16 11008, 22016, 16896, 15872, 27136) than at 8192, 9216, 16384,
# 24576, 32768, and the per-pitch warm rate correlates negatively with the 6-stage walk's HBM bytes
# (data/ncu/walk_pitch_fine_h100). If every pitch keeps the window alike, set crowding is not the mechanism.
# Binary built on the GPU machine. Usage: window_pitch.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_pitch "${1:-H}"
timeout 150 $T --window > $OUT/window_pitch.jsonl 2> $OUT/window_pitch.err; echo "window rc=$?"
timeout 150 $T --window > $OUT/window_pitch_repeat.jsonl 2> $OUT/window_pitch_repeat.err; echo "repeat rc=$?"
timeout 150 $T --window --fine > $OUT/window_pitch_fine.jsonl 2> $OUT/window_pitch_fine.err; echo "fine rc=$?"
wc -l $OUT/*.jsonl; date -u
