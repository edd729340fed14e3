#!/bin/bash
# 2026-11-27 session 29: mb_tma --box-spread-pitch (new), three times: every SM reads its own 128-row panel's first 8
# boxes over and over from the L2, rows pitched 8192..32768 bf16 in steps of 256; the spread of the CTAs' rates.
# Expectation written before this run: if the H100's bad pitches (bf16 11008, 22016, 16896, 15872, 27136, and 10240,
# 11264 in the coarse walks) make some CTAs' boxes slower than others' (their rows crowding a few L2 slices), the CTAs'
# rate spread there (median over p10 or min) is larger than at 8192, 9216, 16384, 24576, 32768, correlating positively
# with the 6-stage paced walk's HBM bytes pitch by pitch; if the spread is alike at every pitch, the pitch does not act
# through the CTAs' L2 rates.
# Binary built on the GPU machine. Usage: box_spread_pitch.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
for r in 1 2 3; do
  timeout 100 $T --box-spread-pitch > $OUT/box_spread_pitch_$r.jsonl 2> $OUT/box_spread_pitch_$r.err
  echo "run $r rc=$?"
done
wc -l $OUT/*.jsonl; date -u
