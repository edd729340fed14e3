#!/bin/bash
# 2026-11-27 session 28: mb_tma --hbm-pitch (every SM streams its own 128-row panel from HBM, box by box along the row,
# over the first 8192 columns of rows pitched 8192..24576 bf16, rings of 4 and 8, after an L2 flush), run twice: is HBM
# slower for 128-byte row pieces at the pitches whose deep L2-paced walks re-read twice the bytes?
# Binary built on the GPU machine. Usage: hbm_pitch.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 100 $T --hbm-pitch > $OUT/hbm_pitch.jsonl 2> $OUT/hbm_pitch.err; echo "hbm rc=$?"
timeout 100 $T --hbm-pitch > $OUT/hbm_pitch_repeat.jsonl 2> $OUT/hbm_pitch_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
