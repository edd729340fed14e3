#!/bin/bash
# Sourced by the microbenchmark run scripts (source data/ncu/scripts/mb_on_card.sh PROGRAM [CARD]): records the card
# in $OUT/gpu.txt, exits 3 unless its name contains CARD (H100, H200; default "H", any), and builds PROGRAM (mb_tma,
# mb_sync, mb_stream, ...) on the GPU machine into /tmp/mbb, leaving its path in T.
PROG=${1:?microbenchmark program}; CARD=${2:-H}
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
grep -q "$CARD" $OUT/gpu.txt || { echo "not a $CARD card"; exit 3; }
date -u
python3 -m perfmodel.microbench --only $PROG --build-only --build-dir /tmp/mbb > $OUT/build.log 2>&1; echo "build rc=$?"
T=$(ls /tmp/mbb/$PROG-* | grep -v ptxas | head -1)
