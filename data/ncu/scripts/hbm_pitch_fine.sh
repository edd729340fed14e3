#!/bin/bash
# 2026-11-27 session 28: mb_tma --hbm-pitch --fine (every SM streams its own 128-row panel from HBM over the first 8192
# columns of rows pitched 8192..24576 bf16 in 64-element steps, rings of 4), twice: which pitches does the GPU's HBM
# stream slower? Binary built on the GPU machine. Usage: hbm_pitch_fine.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 200 $T --hbm-pitch --fine > $OUT/hbm_pitch_fine.jsonl 2> $OUT/hbm_pitch_fine.err; echo "fine rc=$?"
timeout 200 $T --hbm-pitch --fine > $OUT/hbm_pitch_fine_repeat.jsonl 2> $OUT/hbm_pitch_fine_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
