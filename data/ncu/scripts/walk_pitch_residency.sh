#!/bin/bash
# 2026-11-27 session 28: mb_tma --l2-residency-pitch (the in-step panel walk of bench_l2_residency over the first 8192
# columns of rows pitched 8192..24576 bf16, 12-40 MiB read) twice, then mb_tma --walk-pitch --paced once more (timed
# only) on the same card: does the L2 keep less at the pitches whose deep L2-paced walks re-read twice the bytes?
# Binary built on the GPU machine. Usage: walk_pitch_residency.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 200 $T --l2-residency-pitch > $OUT/residency_pitch.jsonl 2> $OUT/residency_pitch.err; echo "residency rc=$?"
timeout 200 $T --l2-residency-pitch > $OUT/residency_pitch_repeat.jsonl 2> $OUT/residency_pitch_repeat.err; echo "repeat rc=$?"
timeout 150 $T --walk-pitch --paced > $OUT/walk_pitch.jsonl 2> $OUT/walk_pitch.err; echo "walk rc=$?"
wc -l $OUT/*.jsonl; date -u
