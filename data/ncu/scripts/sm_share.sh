#!/bin/bash
# 2026-11-27 session 25: mb_tma --sm-share (every SM streams 128x128 tiles' boxes from the L2 at 2-7 stages, A panels
# shared as the GEMM's or private to each CTA; each CTA's SM and cycles recorded), twice: are the GEMM's 24 fast SMs
# the L2 path's share, and from which depth on? Then the GEMM's fast class on the same card (drift_lru.py on 8192^3
# 128x128 s4 / s6 of drift_lru.txt). At most six files come back. Usage: sm_share.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
{ timeout 120 $T --sm-share; echo "sm-share rc=$?" >&2; timeout 120 $T --sm-share; echo "repeat rc=$?" >&2; } \
  > $OUT/sm_share.jsonl 2>> $OUT/build.log
grep -E "8192x8192x8192 bf16 128x128x64_i64x128x16_cg1_cl1x1_mc0_s(4|6)_sw128-128_wg2" data/ncu/scripts/drift_lru.txt \
  > /tmp/gemm_list.txt
python3 data/ncu/scripts/build_probe.py /tmp/gemm_list.txt /tmp/gemm_manifest.json .cache/pmk29p >> $OUT/build.log 2>&1
timeout 200 python3 data/ncu/scripts/drift_lru.py $OUT /tmp/gemm_manifest.json >> $OUT/build.log 2>&1
echo "gemm rc=$?"; rm -f $OUT/ncu_tmp.csv; wc -l $OUT/*.jsonl; tail -3 $OUT/build.log; date -u
