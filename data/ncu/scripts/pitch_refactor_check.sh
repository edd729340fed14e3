#!/bin/bash
# 2026-11-27 session 29: mb_pitch --window and --lag once each after their shared set-up moved into Flusher and
# sweep_pitches (the duplicates check): the same records, fields and order as lag_pitch.sh's runs, rates alike.
# Usage: pitch_refactor_check.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_pitch "${1:-H}"
timeout 120 $T --window > $OUT/window_pitch.jsonl 2> $OUT/window_pitch.err; echo "window rc=$?"
timeout 120 $T --lag > $OUT/lag_pitch.jsonl 2> $OUT/lag_pitch.err; echo "lag rc=$?"
wc -l $OUT/*.jsonl; gzip -9 $OUT/*.jsonl; date -u
