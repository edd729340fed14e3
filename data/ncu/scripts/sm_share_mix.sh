#!/bin/bash
# 2026-11-27 session 25: mb_tma --sm-share-mix (--sm-share's L2 stream with each panel read by 1..132 CTAs in step,
# 4 and 6 stages), twice, then ncu of one run (the L2's sectors and the coalescer's merge): does the fast class appear,
# and the chip's total fall, as the merge falls? Usage: sm_share_mix.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
{ timeout 120 $T --sm-share-mix; echo "mix rc=$?" >&2; timeout 120 $T --sm-share-mix; echo "repeat rc=$?" >&2; } \
  > $OUT/sm_share_mix.jsonl 2>> $OUT/build.log
timeout 300 ncu --clock-control none --csv --log-file $OUT/sm_share_mix_ncu.csv --kernel-name regex:tma_gemm_walk_kernel \
  --metrics lts__t_sectors_srcunit_tex_op_read.sum,lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,gpu__time_duration.sum \
  $T --sm-share-mix > /dev/null 2>> $OUT/build.log; echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; date -u
