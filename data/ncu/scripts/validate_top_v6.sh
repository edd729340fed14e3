#!/bin/bash
# 2026-11-25 session 2: validate-top v6 by hand: known best, the model's top 8, known best again (one thermal state).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
M="PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk timeout 300 python3 -m perfmodel.measure --gpu auto --warmup-ms 50 --min-ms 100 --timeout 30 --no-cublas"
eval $M --sweep configs/sweeps/sm90_validate_top_v6_known_best.toml --out $OUT/validate_top_v6_known_best_before.jsonl --seed 9600 > $OUT/kb1.log 2>&1; echo rc=$?
eval $M --sweep configs/sweeps/sm90_validate_top_v6.toml --out $OUT/validate_top_v6.jsonl --seed 9700 > $OUT/vt6.log 2>&1; echo rc=$?
eval $M --sweep configs/sweeps/sm90_validate_top_v6_known_best.toml --out $OUT/validate_top_v6_known_best_after.jsonl --seed 9800 > $OUT/kb2.log 2>&1; echo rc=$?
tail -n 30 $OUT/kb1.log $OUT/vt6.log $OUT/kb2.log | grep -E "TFLOP|INVALID|==>"
