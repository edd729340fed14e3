#!/bin/bash
# 2026-11-27 session 29: mb_pitch --l2-latency-map (new): which L2 partition holds which address, by latency, without
# ncu (the slice probe's ncu counts gave no per-slice instances, data/microbench/slice_probe_h100). One thread on one
# SM times chains of 8 dependent ld.global.cg and of 8 dependent atom.add 0 on each line of a warmed 16 MiB buffer:
# every line of its first 2 MiB page and the first 512 lines of its 7 other pages from smid 0, 1, 16, 30, 50, 66, 80,
# 100, 115, 131; the first 512 lines from every smid below the SM count + 12. Also the SASS of the kernel (the loads
# dependent, the clock read after a store of the last value).
# Expectation written before this run:
# - The atomic chains from one SM are bimodal: lines whose home is the SM's own L2 partition tens to a hundred-odd
#   cycles faster than the far partition's, about half the lines in each, with a clear gap (no line in between).
# - The load chains are bimodal the same way, unless the near partition keeps copies of far lines for its SMs (the
#   A100 / H100 papers: each partition "caches data for the SMs directly connected"); then they are unimodal near.
# - The SMs fall into two groups whose near sets are each other's complement (agreement up to a flip >= 99%).
# - Within the 2 MiB page the partition is a GF(2)-linear (XOR) function of a few address bits among 7..20, fitting
#   >= 99% of the lines; each other page agrees with it up to a constant flip (physical bits above 21).
# - Within a partition the slices may sit at a few distances: 2-4 sub-clusters 10-30 cycles apart.
# - If the partition hash is what makes the H100's bad pitches, the in-step 128-row boxes of the box-pitch table are
#   split unevenly between the partitions at the slow pitches: the imbalance correlates negatively (< -0.3) with the
#   table's per-pitch rate on both H100 cards, and not with the H200's flat table.
# Outputs gzipped. Binary built on the GPU machine. Usage: l2_latency_map.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_pitch "${1:-H}"
cuobjdump -sass -fun _Z17l2_latency_kernelPhPKjiiPfPy $T > $OUT/l2_latency_kernel.sass 2>&1; echo "sass rc=$?"
timeout 150 $T --l2-latency-map > $OUT/l2_latency_map.jsonl 2> $OUT/l2_latency_map.err; echo "run rc=$?"
wc -l $OUT/*.jsonl; grep -c '"found": 1' $OUT/l2_latency_map.jsonl; gzip -9 $OUT/*.jsonl $OUT/*.sass; date -u
