#!/bin/bash
# 2026-11-26 session 16: mb_tma --skinny-oob on an H200 (its own tma.oob_l2_cost: the L2 time a zero-fill byte takes
# against an in-bounds one; the hardware file had the H100's). Binary built on the GPU machine.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma H200
timeout 400 $T --skinny-oob > $OUT/oob.jsonl 2> $OUT/oob.err; echo "oob rc=$?"
wc -l $OUT/*.jsonl; date -u
