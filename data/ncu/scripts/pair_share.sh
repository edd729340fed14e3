#!/bin/bash
# 2026-11-26 session 15: mb_tma --pair-share (a one-wave grid's GEMM walk without MMAs, each B panel read by one CTA
# or by the two CTAs of its tile column in step, A of 128 / 256 / 160 rows), twice. Binary built on the GPU machine.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma
timeout 200 $T --pair-share > $OUT/pair_share.jsonl 2> $OUT/pair_share.err; echo "pair rc=$?"
timeout 200 $T --pair-share > $OUT/pair_share_repeat.jsonl 2> $OUT/pair_share_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
