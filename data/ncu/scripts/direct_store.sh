#!/bin/bash
# 2026-11-26 session 15: mb_tma --direct-store (a direct-store epilogue's stores alone: 1 or 2 warpgroups a CTA, N = 1408 / 8064 / 8192,
# 16 tiles a CTA on 132 / 66 / 16 CTAs), twice. Binary built on the GPU machine.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma
timeout 200 $T --direct-store > $OUT/direct_store.jsonl 2> $OUT/direct_store.err; echo "store rc=$?"
timeout 200 $T --direct-store > $OUT/direct_store_repeat.jsonl 2> $OUT/direct_store_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
