#!/bin/bash
# 2026-11-27 session 30: the H100's L2 maps (mb_pitch --l2-latency-map, --l2-slice-map) on an H200, the same GH100 die
# with six HBM3e stacks where the H100 SXM has five. The H100's bad row pitches do not show on the H200 (its box-pitch
# table is flat), and neither the H100's partitions nor its slices explain them (docs/calibrate.md, the thirtieth
# session). Expectation written before the run: the H200's home partition is the same parity of address bits 12, 13,
# 16, 17, 19 (the same die); its slices differ in number or in the non-linear part (the H100's 80 slices in 16 XOR
# classes of 5 would be 96 in classes of 6 if the slices follow the memory controllers). If the slice program's decode
# assumes the H100's 80 slices it may stop early; its raw records still show the contention levels.
# Usage on the GPU machine: bash data/ncu/scripts/l2_maps_h200.sh
set -u
source data/ncu/scripts/mb_on_card.sh mb_pitch H200
cuobjdump -sass -fun _Z17l2_latency_kernelPhPKjiiPfPy $T > $OUT/l2_latency_kernel.sass 2>&1; echo "sass rc=$?"
timeout 150 $T --l2-latency-map > $OUT/l2_latency_map.jsonl 2> $OUT/l2_latency_map.err; echo "latency run rc=$?"
grep -c '"found": 1' $OUT/l2_latency_map.jsonl; date -u
timeout 200 $T --l2-slice-map > $OUT/l2_slice_map.jsonl 2> $OUT/l2_slice_map.err; echo "slice run rc=$?"
wc -l $OUT/*.jsonl; head -5 $OUT/l2_slice_map.err
grep -E '"l2_slice_(setup|cal_split|load|group_summary|stop)"' $OUT/l2_slice_map.jsonl | cut -c1-500
gzip -9 $OUT/*.jsonl $OUT/*.sass
tar czf $OUT/small.tgz -C $OUT l2_latency_map.err l2_slice_map.err build.log && rm $OUT/l2_latency_map.err \
  $OUT/l2_slice_map.err $OUT/build.log; ls $OUT; date -u
