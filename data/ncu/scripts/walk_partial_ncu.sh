#!/bin/bash
# 2026-11-27 session 26: mb_tma --walk-partial --ncu under ncu (HBM bytes, the coalescer's received and served sectors,
# the L2's sectors, hits and fabric sectors, time), one launch per walk, on the named card: what the L2 serves and
# fills when one wave of the 64x256 walk at 256x4096x14336 caps at ~7.5 TB/s received and at 1024x1024x32768 at ~10.8
# (data/microbench/*-walk-partial.json). Binary built on the GPU machine. Usage: walk_partial_ncu.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 400 ncu --clock-control none --csv --log-file $OUT/walk_partial_ncu.csv \
  --metrics dram__bytes_read.sum,lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_requests_srcunit_tex_op_read.sum,gpu__time_duration.sum \
  --kernel-name regex:tma_gemm_walk_kernel $T --walk-partial --ncu > $OUT/walk_partial_profiled.jsonl 2> $OUT/ncu.err; echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; date -u
