#!/bin/bash
# 2026-11-27 session 28: after --walk-place and --walk-alone took their device buffers from one struct (PlacedBuffers),
# each once on the named card: the same record counts, fields and order as before. Usage: placed_refactor_check.sh H100.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 200 $T --walk-place > $OUT/walk_place.jsonl 2> $OUT/walk_place.err; echo "place rc=$?"
timeout 200 $T --walk-alone > $OUT/walk_alone.jsonl 2> $OUT/walk_alone.err; echo "alone rc=$?"
wc -l $OUT/*.jsonl; date -u
