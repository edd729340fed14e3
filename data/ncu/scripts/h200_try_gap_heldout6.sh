#!/bin/bash
# 2026-11-25 session 3: asked for nvidia-h200 (may get an H100): mb_wgmma --gap and --transient (the launch gap and
# the fast power window of this GPU), then the sixth held-out set in 100 ms and 30 ms loops.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) tag=h200 ;; *) tag=h100 ;;
esac
echo "tag=$tag"; date -u
B=$(ls .cache/h200b/mb_wgmma-* | grep -v ptxas | head -1)
timeout 100 $B --gap 1.0 > $OUT/gap.jsonl 2> $OUT/gap.err; echo "gap rc=$?"
timeout 100 $B --transient > $OUT/transient.jsonl 2> $OUT/transient.err; echo "transient rc=$?"
grep -c '"gap"' $OUT/gap.jsonl; date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk6 python3 -m perfmodel.measure --gpu auto"
timeout 330 $M --sweep configs/sweeps/sm90_heldout6.toml --out $OUT/${tag}_heldout6.jsonl --warmup-ms 50 \
  --min-ms 100 --timeout 30 --time-budget 280 --seed 9610 > $OUT/heldout6.log 2>&1; echo "heldout6 rc=$?"
timeout 120 $M --sweep configs/sweeps/sm90_heldout6_short.toml --out $OUT/${tag}_heldout6_short.jsonl \
  --timeout 20 --min-ms 30 --warmup-ms 10 --cublas-each --seed 9710 > $OUT/heldout6_short.log 2>&1
echo "heldout6_short rc=$?"; wc -l $OUT/*.jsonl; date -u
