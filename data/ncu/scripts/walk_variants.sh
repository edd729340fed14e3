#!/bin/bash
# 2026-11-27 session 27: mb_tma --walk-variants (the one-wave walks of --walk-partial, 64x256 tiles over 256x4096x14336
# and 1024x1024x32768, 128x128 over 256x4096x14336, paced and unpaced, 3..5 stages), each changed in one thing: B's
# 256-row box as two 128-row boxes (split2), or the tile rows' k-blocks staggered by 1 or 8 per row (stagger1/8), run
# twice on the named card: is what holds the paced 64x256 walk at 256x4096x14336 the box or the in-step misses?
# Binary built on the GPU machine. Usage: walk_variants.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 200 $T --walk-variants > $OUT/walk_variants.jsonl 2> $OUT/walk_variants.err; echo "variants rc=$?"
timeout 200 $T --walk-variants > $OUT/walk_variants_repeat.jsonl 2> $OUT/walk_variants_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
