#!/bin/bash
# 2026-11-26 session 7: the fourteenth held-out set on an H200 if the lent machine is one (h200_heldout14), else a repeat on
# another H100 card (h100_heldout14_repeat); 100 ms loops, binaries of .cache/pmk22 (kernel 76a174cac980a28d); for the
# next session's changes, not read in this one.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) name=h200_heldout14; seed=9977 ;; *) name=h100_heldout14_repeat; seed=9975 ;;
esac
date -u
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk22 timeout 250 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_heldout14.toml --out $OUT/$name.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --time-budget 230 --seed $seed > $OUT/$name.log 2>&1; echo "$name rc=$?"
wc -l $OUT/*.jsonl; date -u
