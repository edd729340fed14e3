#!/bin/bash
# 2026-11-27 session 29: mb_tma --box-pitch-table (new), twice: the in-step L2-resident box walk of --box-spread-pitch
# as a table over the row pitch, boxes of 64 / 128 / 256 rows, 1..128 KB in 128-byte steps, 128-row boxes also in
# 16-byte steps to 32 KB.
# Expectation written before this run: the 128-row table repeats --box-spread-pitch's pitch profile at 16-64 KB
# (data/microbench/box_spread_pitch_h100, another card: correlation >= 0.6, the bad pitches bf16 11008 / 15872 /
# 16896 / 22016 / 27136 6-10% below the median), and the two runs correlate >= 0.8.
# For the H200 (second use, written before that run): its GEMM loses at bf16 K = 16384 and 32768 (32 and 64 KB rows;
# data/ncu/pitch_k2_h200, pitch_k4_h200: +21..+34% against the model) and 33792 (+25%), not at 16896 (+1%) or 9216
# (+2%); if the box rate tracks the GEMM's bad pitches on this GPU too, 32768 and 65536 bytes are among the H200's
# slowest 128-row pitches.
# Outputs gzipped. Binary built on the GPU machine. Usage: box_pitch_table.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
for r in 1 2; do
  timeout 200 $T --box-pitch-table > $OUT/box_pitch_table_$r.jsonl 2> $OUT/box_pitch_table_$r.err; echo "run $r rc=$?"
done
wc -l $OUT/*.jsonl; gzip -9 $OUT/*.jsonl; date -u
