#!/bin/bash
# 2026-11-27 session 26: mb_tma --walk-partial (one wave of the GEMM walk, one tile a CTA, pm8 order: 64x256 tiles over
# 256x4096x14336, 1024x1024x32768, 128x8192x3072 and 64x16384x28672, 128x128 tiles over the first two; the consumer
# holding each stage the tile's MMA time or 0; 2..6 stages; the stages' issue-to-landing cycles), run twice on the named
# card: is the depth-limited one-wave GEMM of data/ncu/partial_ncu a property of the memory system alone?
# Binary built on the GPU machine. Usage: walk_partial.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 200 $T --walk-partial > $OUT/walk_partial.jsonl 2> $OUT/walk_partial.err; echo "walk rc=$?"
timeout 200 $T --walk-partial > $OUT/walk_partial_repeat.jsonl 2> $OUT/walk_partial_repeat.err; echo "walk repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
