#!/bin/bash
# 2026-11-27 session 28: after --walk-drift, its smem walk and --walk-drift-paced took their timing fields from one
# function (emit_grid_timing), each once on the named card: the same record counts, fields and order as before.
# Usage: grid_timing_refactor_check.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 150 $T --walk-drift > $OUT/walk_drift.jsonl 2> $OUT/walk_drift.err; echo "drift rc=$?"
timeout 150 $T --walk-drift-paced > $OUT/walk_drift_paced.jsonl 2> $OUT/walk_drift_paced.err; echo "paced rc=$?"
wc -l $OUT/*.jsonl; date -u
