#!/bin/bash
# 2026-11-26 session 15: mb_tma --pair-smem (the --pair-share walk at 28-84 CTAs, M = 256 and 160, with two consumer
# warpgroups that read 0 or 48 KB of each stage from shared memory, the 128x128x64 tile's wgmma operand reads, then
# spin 0 or 200 cycles), twice. Binary built on the GPU machine.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma
timeout 200 $T --pair-smem > $OUT/pair_smem.jsonl 2> $OUT/pair_smem.err; echo "smem rc=$?"
timeout 200 $T --pair-smem > $OUT/pair_smem_repeat.jsonl 2> $OUT/pair_smem_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
