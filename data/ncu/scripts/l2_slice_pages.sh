#!/bin/bash
# 2026-11-27 session 30: mb_pitch --l2-slice-pages (new): how a line's L2 slice moves from one 2 MiB page to the next,
# without ncu. --l2-slice-map (data/microbench/l2_slice_map_h100) mapped the 80 slices over one page; the box-pitch
# tables' in-step lines looked even over them, but only with every page mapped like that one, and the latency map saw
# the partition flip on pages 4-7 of its buffer. A buffer allocated as mb_tma --box-pitch-table's (the same
# allocations before it); a reference line of each of the 80 slices in its first page (the one-page map's offsets);
# the reference pairs; then 128 sample lines at the same offsets of many pages (0..127, 2^i, 24 scattered, then 128,
# 129, ... until 110 s), each hammered with 18 chunks of references (red.global.add from every SM). Also the SM /
# memory clocks and the power every 5 s. Read with python3 benchmarks/l2_slice_pages.py.
# Expectation written before this run:
# - The calibration repeats the one-page probe's levels: two slices as fast as one line alone, one slice about 2x,
#   neighbours in a quad's cycle about 1.9x. The buffer's first page maps as the measured page up to a relabelling:
#   every reference contends with exactly 2 others (its cycle neighbours under the one-page map's labels, >= 99% of
#   the 3160 pairs as predicted), and no two references of a slot's family contend.
# - >= 99% of the sample lines decode at Hamming distance <= 1; the per-page split has few times near its cut.
# - Every page is a relabelling of the one-page map (the lines of one slice stay together: relabel share >= 0.98 on
#   every page, one-to-one), quads go to quads, and the linear class moves by one XOR constant k_p a page whose
#   partition part reproduces the latency map's flips (one page bit at least flips the partition).
# - k_p and the partition flip are linear (XOR) in the page bits 21 and up (>= 95% of the pages not powers of two as
#   the XOR of their bits predicts). The 5-way part moves too (sigma_p not determined by k_p alone), and whether the
#   whole sigma_p composes over the page bits is open: expected yes for an XOR-folded hash, no for a mod-5 of a sum.
# - With every page's map known, the in-step lines stay about even and do not sort the rates: |Spearman| < 0.3 on
#   both H100 tables for slices, quads and partitions (the pages' own maxima summed, the most any relabelling of the
#   pages could give, reached only -0.28 / -0.24 and followed the pitch). The bad GEMM pitches 22016 / 31744 / 33792 B
#   are no more uneven than the good 16384 / 18432 / 32768.
# After the first call (card 1652124109629, 2026-11-27 22:41 UTC), which stopped at the calibration, the expectation
# above unchanged: there reference 0 with reference 4 (another quad of the one-page map) ran at the slow level (80.7
# us against 42.6 alone) and with reference 2 (its neighbour there) fast (41.9): the buffer's first page does not keep
# the measured page's quads. The calibration now takes the fast level as the median over 24 reference pairs and the
# slow one from lines ^ 1, and the slot families come from the reference pairs as measured (mb_pitch.cu, step 2).
# Outputs gzipped (the records without and with the raw times). Binary built on the GPU machine.
# Usage: l2_slice_pages.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_pitch "${1:-H}"
( while :; do nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu \
      --format=csv,noheader; sleep 5; done ) > $OUT/clocks.txt 2>&1 &
S=$!
timeout 200 $T --l2-slice-pages > $OUT/all.jsonl 2> $OUT/l2_slice_pages.err; echo "run rc=$?"
kill $S
grep -v '"l2_slice_pages_raw"' $OUT/all.jsonl > $OUT/l2_slice_pages.jsonl
grep '"l2_slice_pages_raw"' $OUT/all.jsonl > $OUT/l2_slice_pages_raw.jsonl
rm $OUT/all.jsonl
wc -l $OUT/*.jsonl; head -5 $OUT/l2_slice_pages.err
grep -E '"l2_slice_pages_(buffer|cal|refcheck|load|stop|summary)"' $OUT/l2_slice_pages.jsonl | cut -c1-700
grep '"l2_slice_pages_page"' $OUT/l2_slice_pages.jsonl | head -3 | cut -c1-300
gzip -9 $OUT/*.jsonl; date -u
