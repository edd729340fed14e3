#!/bin/bash
# 2026-11-25 session 2, the H200 (if the lent machine is one): mb_wgmma --gap and the heldout4 sweep.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1; cat $OUT/gpu.txt
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "== gap"; date -u
timeout 120 .cache/gap/mb_wgmma --gap 1.5 > $OUT/gap.jsonl 2> $OUT/gap.err; echo "rc=$?"
cat $OUT/gap.jsonl | cut -c1-400
echo "== heldout4"; date -u
PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk timeout 420 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout4.toml --out $OUT/heldout4.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 330 --seed 9500 > $OUT/heldout4.log 2>&1; echo "rc=$?"
tail -3 $OUT/heldout4.log; wc -l $OUT/heldout4.jsonl; date -u
