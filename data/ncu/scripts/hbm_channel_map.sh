#!/bin/bash
# 2026-11-27 session 30: mb_pitch --hbm-channel-map (new): how evenly a pitched column of rows spreads over the HBM
# channels, without ncu. The H100's L2 partitions and slices are even at its bad pitches (l2_latency_map_h100,
# l2_slice_map_h100); the H100 SXM has 5 HBM3 stacks, the H200 6 (and a flat box-pitch table). Every SM streams an
# 8 GiB buffer's rows (ld.global.cg, each line once a launch, 256 MiB a launch, far beyond the 50 MB L2) in column order
# (the lines r x P + k x 128 of all rows, k-block by k-block: the GEMM's in-step reads) or in row order (the same bytes
# in address order); event-timed GB/s, median of 5 launches. Pitches 2^b (b = 7..30), then every aligned pitch of
# 16-64 KB (3 rounds in column order, 1 in row order). Also the kernel's SASS and the SM / memory clocks and power
# every 5 s.
# Expectation written before this run:
# - Row order streams at the chip's rate at every pitch, about 2.8-3.0 TB/s on an H100 (3.35 peak), 3.6-4.2 on the
#   H200; the rounds agree within 2%.
# - Column order at 2^b: near the row-order rate for small b (the column's lines spread over the channels by the low
#   interleave bits, about 8..13), and lower (>= 10% below) for some b >= 13 whose stride keeps the in-step set on
#   fewer channels; no b gives a single channel's rate (< 10% of the chip's), since the hash XORs high bits in.
# - Column order at the 16-64 KB pitches: within a few percent of row order at most pitches; if the HBM channels make
#   the H100's bad pitches, the bad 22016 / 31744 / 33792 B stream 3-8% slower than the good 16384 / 18432 / 32768 B,
#   and the column rate correlates (Spearman) >= +0.3 with the box-pitch table's rate on both H100 cards
#   (box_pitch_table_h100, _h100b), and |rho| < 0.2 against the H200's flat table.
# Outputs gzipped. Binary built on the GPU machine. Usage: hbm_channel_map.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_pitch "${1:-H100}"
cuobjdump -sass -fun _Z17hbm_stream_kernelPKhmjjiPj $T > $OUT/hbm_stream_kernel.sass 2>&1; echo "sass rc=$?"
( while :; do nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu \
      --format=csv,noheader; sleep 5; done ) > $OUT/clocks.txt 2>&1 &
S=$!
timeout 180 $T --hbm-channel-map > $OUT/hbm_channel_map.jsonl 2> $OUT/hbm_channel_map.err; echo "run rc=$?"
kill $S
wc -l $OUT/*.jsonl; head -5 $OUT/hbm_channel_map.err
grep -E '"hbm_map_(setup|stop)"|"kind": "bit"' $OUT/hbm_channel_map.jsonl | cut -c1-300
gzip -9 $OUT/*.jsonl $OUT/*.sass; date -u
