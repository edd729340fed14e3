#!/bin/bash
# 2026-11-27 session 29 (review): mb_tma --box-spread-pitch and --box-pitch-table once each after both took their
# timed own-panel walk from run_stream (which gained the CTAs' 10th percentile) instead of their own copies of it: the
# same records, fields and order as box_spread_pitch.sh's and box_pitch_table.sh's runs, rates alike.
# Usage: box_refactor_check.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 100 $T --box-spread-pitch > $OUT/box_spread_pitch.jsonl 2> $OUT/box_spread_pitch.err
echo "spread rc=$?"
timeout 200 $T --box-pitch-table > $OUT/box_pitch_table.jsonl 2> $OUT/box_pitch_table.err; echo "table rc=$?"
wc -l $OUT/*.jsonl; gzip -9 $OUT/*.jsonl; date -u
