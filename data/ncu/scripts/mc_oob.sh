#!/bin/bash
# 2026-11-26 session 17: mb_tma --mc-oob twice (the second run's records are the repeat): clusters of 2 whose 256-row A
# box is multicast in two 128-row slices (our 256x128 tile at 1x2) or loaded whole by each CTA, with A's rows in bounds
# 256 / 192 / 128 / 64 / 16 (a dead slice at 128 and below). Binary built on the GPU machine.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma
timeout 250 $T --mc-oob > $OUT/mc_oob.jsonl 2> $OUT/mc_oob.err; echo "run rc=$?"
timeout 250 $T --mc-oob > $OUT/mc_oob_repeat.jsonl 2> $OUT/mc_oob_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; tail -3 $OUT/mc_oob.err; date -u
