#!/bin/bash
# 2026-11-27 session 27: mb_tma --walk-place (the one-wave 64-CTA walks of --walk-variants at 5 stages, paced and
# unpaced, on chosen SMs: the launch's own placement, the cluster launch of our GEMM, both SMs of whole TPCs in four
# GPCs or spread over all, one SM of each TPC), run twice on the named card: do TPC pairs or crowded GPCs hold it?
# Binary built on the GPU machine. Usage: walk_place.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 200 $T --walk-place > $OUT/walk_place.jsonl 2> $OUT/walk_place.err; echo "place rc=$?"
timeout 200 $T --walk-place > $OUT/walk_place_repeat.jsonl 2> $OUT/walk_place_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
