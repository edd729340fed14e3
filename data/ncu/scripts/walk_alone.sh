#!/bin/bash
# 2026-11-27 session 28: mb_tma --walk-alone (the 64x256 walk of 256x4096x14336 at 5 stages, paced and unpaced, B from
# HBM or kept in L2, on 16 SMs alone: each 16-SM cluster group and three sets of the SMs outside them; then 64 CTAs on
# the probe's slow set and three groups against four groups), run twice, and --walk-place once on the same card (the
# cluster launch's slow GPC on this card). Binary built on the GPU machine. Usage: walk_alone.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 200 $T --walk-alone > $OUT/walk_alone.jsonl 2> $OUT/walk_alone.err; echo "alone rc=$?"
timeout 200 $T --walk-alone > $OUT/walk_alone_repeat.jsonl 2> $OUT/walk_alone_repeat.err; echo "repeat rc=$?"
timeout 200 $T --walk-place > $OUT/walk_place.jsonl 2> $OUT/walk_place.err; echo "place rc=$?"
wc -l $OUT/*.jsonl; date -u
