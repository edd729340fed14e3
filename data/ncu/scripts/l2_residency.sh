#!/bin/bash
# 2026-11-26 session 14: mb_tma --l2-residency (TMA-loaded 128-row panels of 16 KB rows, 8-48 MiB, walked in step by
# every SM, each panel read by other SMs on the second pass; timed over warm launches), then the same under ncu with
# the caches left as they are (--cache-control none) for the HBM bytes each launch reads. Binary built on the GPU machine.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 -m perfmodel.microbench --only mb_tma --build-only --build-dir /tmp/mbb > $OUT/build.log 2>&1; echo "build rc=$?"
T=$(ls /tmp/mbb/mb_tma-* | grep -v ptxas | head -1)
timeout 200 $T --l2-residency > $OUT/residency.jsonl 2> $OUT/residency.err; echo "residency rc=$?"
timeout 300 ncu --cache-control none --clock-control none --csv --log-file $OUT/residency_ncu.csv \
  --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,gpu__time_duration.sum \
  $T --l2-residency > $OUT/residency_profiled.jsonl 2> $OUT/ncu.err; echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; date -u
