#!/bin/bash
# 2026-11-28 session 31: mb_tma --wide-k (new): is our GEMM's 2-stage ring of 256-byte k-block rows slow without MMAs?
# The GEMM at 8192^3 bf16 on an H100 (kernel clock, 2-stage rings, one stage in flight: the consumers free stage s-1
# only once stage s has landed and its wgmma batch is issued): 128x128x64 1413 cycles a stage, 128x256x64 1612,
# 128x128x128 2797, 128x256x128 4083; the model (predict, sustained clock, cycles / stages a CTA) 1261, 1441, ~1960,
# ~2370. The walk: every SM one CTA over the whole tile grid in pm8 order, kb = 1 / 2 boxes of 64 columns per operand a
# stage, the consumer freeing the previous stage (lag 1, the GEMM's protocol) or the stage itself (lag 0), holding a
# stage the tile's MMA time (512 / 1024 cycles a 64-column k-block, 128x128 / 128x256) or 0, 2-4 stages.
# Expectation written before the run. Check first that the lag-1 2-stage walk with kb = 1 and the MMA time lands near
# the GEMM's 1413 / 1612 cycles a stage (within ~15%; else the walk misses the GEMM's ring and neither branch holds).
# Then, the same walk with kb = 2:
#  - TMA / barrier path (the load side alone): it takes about twice its kb = 1 twin a stage or more, near the GEMM's
#    2797 (128x128) / 4083 (128x256), i.e. no fewer cycles a 64-column k-block than kb = 1, and its stage's
#    issue-to-landing cycles (land) about twice kb = 1's: a stage in flight fills at a fixed ~20-27 B/clk a SM.
#  - MMAs (the wgmma's shared-memory reads or the tensor core, absent here): it runs at or under the model's ~1960 /
#    ~2370 cycles a stage (clearly fewer cycles a 64-column k-block than kb = 1; the GEMM >= 20% slower than the walk).
# In between (the walk slower than the model but well short of the GEMM): both, the share each read off the table.
# The lag-0 and 3-4 stage rows say whether more bytes in flight (two stages, or one stage of two boxes) fill faster.
# Binary built on the GPU machine. Usage: wide_k_walk.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 120 $T --wide-k > $OUT/wide_k_walk.jsonl 2> $OUT/wide_k_walk.err; echo "walk rc=$?"
timeout 120 $T --wide-k > $OUT/wide_k_walk_repeat.jsonl 2> $OUT/wide_k_walk_repeat.err; echo "walk repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
