#!/bin/bash
# 2026-11-27 session 19: mb_power with the bulk-copy phases (the TMA unit reading L2-resident and HBM bytes into
# shared memory, one CTA per SM): the HBM power of a GEMM's load path, against the ld.global.cg phases' figure
# (clock.hbm_power_w). Usage: bulk_power.sh CARD DATASHEET_TB_S (H100 3.35, H200 4.8).
set -u
CARD=${1:?card}; TBS=${2:?datasheet TB/s}
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
grep -q "$CARD" $OUT/gpu.txt || { echo "not a $CARD card"; exit 3; }
date -u
timeout 300 python3 -m perfmodel.microbench.power --out $OUT --seconds 6 --datasheet-tb-s $TBS --build-dir /tmp/mbp \
  > $OUT/power.log 2>&1; echo "power rc=$?"; tail -40 $OUT/power.log; date -u
