#!/bin/bash
# 2026-11-25 session 2: mb_wgmma --transient, then the heldout5 short-loop sweep.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 .cache/gap/mb_wgmma --transient > $OUT/transient.jsonl 2> $OUT/transient.err; echo "rc=$?"; wc -l $OUT/transient.jsonl
sleep 2
PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk5 timeout 400 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout5_short.toml --out $OUT/h100_heldout5_short.jsonl \
  --timeout 20 --min-ms 30 --warmup-ms 10 --cublas-each --seed 9900 > $OUT/heldout5.log 2>&1; echo "rc=$?"
tail -3 $OUT/heldout5.log; wc -l $OUT/h100_heldout5_short.jsonl
