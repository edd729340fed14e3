#!/bin/bash
# 2026-11-27 session 25: mb_tma --sm-share (every SM streams its own 128x128 tile's boxes from the L2 at 2-8 stages,
# each CTA's SM and cycles recorded): are the GEMM's 24 fast SMs the L2 path's share, and from which depth on? Then the
# GEMM's fast class on the same card (drift_lru.py on two rings of drift_lru.txt). Usage: sm_share.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 120 $T --sm-share > $OUT/sm_share.jsonl 2> $OUT/sm_share.err; echo "sm-share rc=$?"
timeout 120 $T --sm-share > $OUT/sm_share_repeat.jsonl 2> $OUT/sm_share_repeat.err; echo "sm-share repeat rc=$?"
grep -E "8192x8192x8192 bf16 128x128x64_i64x128x16_cg1_cl1x1_mc0_s(4|6)_sw128-128_wg2" data/ncu/scripts/drift_lru.txt \
  > $OUT/gemm_list.txt
python3 data/ncu/scripts/build_probe.py $OUT/gemm_list.txt $OUT/manifest.json .cache/pmk29p > $OUT/gemm_build.log 2>&1
timeout 200 python3 data/ncu/scripts/drift_lru.py $OUT $OUT/manifest.json > $OUT/gemm_run.log 2>&1; echo "gemm rc=$?"
rm -f $OUT/ncu_tmp.csv; wc -l $OUT/*.jsonl; date -u
