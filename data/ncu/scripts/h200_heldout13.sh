#!/bin/bash
# 2026-11-26 session 7: the thirteenth held-out set on an H200 if the lent machine is one (h200_heldout13, never read
# before the session's end), else a repeat on another H100 card (h100_heldout13_repeat); then the long-K calibration
# sweep on the same card. 100 ms loops, binaries of .cache/pmk20 (kernel 1a8f9432f8b4af46; as the
# sources had moved on to 76a174cac980a28d, the measure step rebuilt them on the device with those).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) gpu=h200; seed=9989 ;; *) gpu=h100; seed=9987 ;;
esac
name=${gpu}_heldout13; [ $gpu = h100 ] && name=h100_heldout13_repeat
date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk20 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 250 $M --sweep configs/sweeps/sm90_heldout13.toml --out $OUT/$name.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 230 --seed $seed > $OUT/$name.log 2>&1; echo "$name rc=$?"; date -u
[ $gpu = h200 ] && { timeout 200 $M --sweep configs/sweeps/sm90_ksweep.toml --out $OUT/h200_ksweep.jsonl --warmup-ms 50 \
  --min-ms 100 --time-budget 190 --seed 9988 > $OUT/ksweep.log 2>&1; echo "ksweep rc=$?"; }
wc -l $OUT/*.jsonl; date -u
