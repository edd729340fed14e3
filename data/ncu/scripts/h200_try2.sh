#!/bin/bash
# 2026-11-25 session 3, a fifth try for an H200: only on an H200, mb_wgmma --gap/--transient and the seventh held-out
# set (100 ms loops); on an H100 it stops after naming the card.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) ;; *) echo "not an H200: stop"; exit 0 ;;
esac
date -u
B=$(ls .cache/h200b/mb_wgmma-* | grep -v ptxas | head -1)
timeout 100 $B --gap 1.0 > $OUT/gap.jsonl 2> $OUT/gap.err; echo "gap rc=$?"
timeout 100 $B --transient > $OUT/transient.jsonl 2> $OUT/transient.err; echo "transient rc=$?"
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk7 timeout 400 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout7.toml --out $OUT/h200_heldout7.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 330 --seed 9830 > $OUT/heldout7.log 2>&1; echo "heldout7 rc=$?"
wc -l $OUT/*.jsonl; date -u
