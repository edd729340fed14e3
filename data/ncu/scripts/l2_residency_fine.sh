#!/bin/bash
# 2026-11-26 session 18: mb_tma --l2-residency with 2 MiB steps between 20 and 32 MiB (8-48 MiB in all), timed and
# then under ncu with the caches left as they are (--cache-control none) for the HBM bytes each launch reads: where the
# GPU keeps TMA-loaded panels that SMs all over the chip read, on the H100 and on the H200 (whose 60 MB L2 the model
# took the H100's fraction of). Binary built on the GPU machine. Usage: l2_residency_fine.sh [H100|H200] (the card the
# call must run on: exits 3 on another one).
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 200 $T --l2-residency > $OUT/residency.jsonl 2> $OUT/residency.err; echo "residency rc=$?"
timeout 300 ncu --cache-control none --clock-control none --csv --log-file $OUT/residency_ncu.csv \
  --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,gpu__time_duration.sum \
  $T --l2-residency > $OUT/residency_profiled.jsonl 2> $OUT/ncu.err; echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; date -u
