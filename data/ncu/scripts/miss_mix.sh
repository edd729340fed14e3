#!/bin/bash
# 2026-11-26 session 15: mb_tma --miss-mix (every SM streams 16 KB TMA boxes, a share of them from HBM and the rest
# from 8 MiB of L2-resident panels: does an L2 fill from HBM take L2 bandwidth?), then the same under ncu with the
# caches left as they are (--cache-control none) for the HBM bytes and L2 hits of each launch. Binary built on the GPU
# machine.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma
timeout 120 $T --miss-mix > $OUT/miss_mix.jsonl 2> $OUT/miss_mix.err; echo "mix rc=$?"
timeout 120 $T --miss-mix > $OUT/miss_mix_repeat.jsonl 2> $OUT/miss_mix_repeat.err; echo "repeat rc=$?"
timeout 300 ncu --cache-control none --clock-control none --csv --log-file $OUT/miss_mix_ncu.csv \
  --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,gpu__time_duration.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,lts__d_sectors.avg.pct_of_peak_sustained_elapsed \
  $T --miss-mix --quick > $OUT/miss_mix_profiled.jsonl 2> $OUT/ncu.err; echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; date -u
