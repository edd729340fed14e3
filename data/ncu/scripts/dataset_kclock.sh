#!/bin/bash
# 2026-11-26 session 5: the main dataset's sweep again with the in-kernel clock probe, half HALF (a or b; 100 ms loops).
set -u
HALF=${HALF:-a}
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk16$HALF timeout 560 python3 -m perfmodel.measure --gpu auto --no-cublas \
  --sweep configs/sweeps/sm90_dataset_kclock_$HALF.toml --out $OUT/h100_sm90_dataset_kclock_$HALF.jsonl --warmup-ms 50 \
  --min-ms 100 --timeout 30 --time-budget 540 --seed $([ "$HALF" = a ] && echo 9970 || echo 9971) > $OUT/dataset_$HALF.log 2>&1; echo "rc=$?"
tail -2 $OUT/dataset_$HALF.log; wc -l $OUT/*.jsonl; date -u
