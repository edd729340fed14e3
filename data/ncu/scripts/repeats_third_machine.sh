#!/bin/bash
# 2026-11-25 session 2, a second try for an H200: mb_wgmma --gap and --transient, the heldout4 and heldout5 sweeps.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')
timeout 100 .cache/gap/mb_wgmma --gap 1.0 > $OUT/gap.jsonl 2> $OUT/gap.err; echo "gap rc=$?"
timeout 100 .cache/gap/mb_wgmma --transient > $OUT/transient.jsonl 2> $OUT/transient.err; echo "transient rc=$?"
grep '"gap"' $OUT/gap.jsonl | cut -c1-300
M="PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk45 timeout 300 python3 -m perfmodel.measure --gpu auto"
eval $M --sweep configs/sweeps/sm90_heldout4.toml --out $OUT/heldout4.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 250 --seed 9410 > $OUT/heldout4.log 2>&1; echo "heldout4 rc=$?"
eval $M --sweep configs/sweeps/sm90_heldout5_short.toml --out $OUT/heldout5_short.jsonl --timeout 20 --min-ms 30 \
  --warmup-ms 10 --cublas-each --seed 9910 > $OUT/heldout5.log 2>&1; echo "heldout5 rc=$?"
wc -l $OUT/*.jsonl
