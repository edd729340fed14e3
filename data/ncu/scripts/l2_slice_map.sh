#!/bin/bash
# 2026-11-27 session 29: mb_pitch --l2-slice-map (new): which lines of a 2 MiB page share an L2 slice, by contention,
# without ncu. The home partition is the parity of address bits 12, 13, 16, 17, 19 and is balanced at every
# box-pitch-table pitch (data/microbench/l2_latency_map_h100); this asks the same of the slices. Warps on every SM
# hammer a few lines with red.global.add (done at the line's home slice), each launch timed by events: a calibration
# (requests of 1, 8 or 32 words; pairs near and far from lines 0 and 34), every line of the page paired with 8
# references (lines 0, 2, 10001, 15000, 34, 296, 48, 40), classes of a 1024-line sample found greedily, then every line
# against chunks of the classes' references (a binary code of its class). Also the SASS of the hammer kernel, and the
# SM / memory clocks and the power every 5 s during the run.
# Expectation written before this run:
# - One line hammered by all SMs runs at its slice's atomic rate. A pair of lines on two slices takes as long as one
#   line alone; on one slice about twice as long (1.6-2x), with nothing in between (bimodal). The same line twice is
#   as slow as two lines of one slice: different words of a line do not serialize beyond the slice's rate.
# - The contended unit is an L2 slice: about 80 of them (40 a partition; 50 MB / 640 KB), each about 205 of the page's
#   16384 lines (the latency map's sub-clusters are multiples of 208 lines; its 208-line cluster of lines 34, 35, 38,
#   39, 346, ... is one slice, so reference 34's class is those 208 lines).
# - Every line sharing a reference's slice is in the reference's partition; membership is constant over aligned
#   256-byte pairs of lines (as the latency sub-clusters) and over nothing larger.
# - Within a partition the slice is not an XOR of address bits: a few linear bits (2^k groups of slices) and a
#   non-power-of-two rest (40 = 8 x 5: a mod-5 part).
# - The group decode reads a class for >= 99% of the lines, and agrees with the greedy classes on the sample.
# - If the slices make the H100's bad pitches: the in-step lines of the box-pitch tables pile onto a few slices at the
#   slow pitches, so their max-over-mean slice load correlates < -0.3 with the table's rate on both H100 cards, and
#   less on the H200's flat table. (The partitions did not: |rho| <= 0.03.)
# Outputs gzipped. Binary built on the GPU machine. Usage: l2_slice_map.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_pitch "${1:-H}"
cuobjdump -sass -fun _Z16l2_hammer_kernelPjPKjiii $T > $OUT/l2_hammer_kernel.sass 2>&1; echo "sass rc=$?"
( while :; do nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu \
      --format=csv,noheader; sleep 5; done ) > $OUT/clocks.txt 2>&1 &
S=$!
timeout 180 $T --l2-slice-map > $OUT/l2_slice_map.jsonl 2> $OUT/l2_slice_map.err; echo "run rc=$?"
kill $S
wc -l $OUT/*.jsonl; cat $OUT/l2_slice_map.err | head -5
grep -E '"l2_slice_(setup|cal_split|load|group_summary|stop)"' $OUT/l2_slice_map.jsonl | cut -c1-700
gzip -9 $OUT/*.jsonl $OUT/*.sass; date -u
