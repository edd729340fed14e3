#!/bin/bash
# 2026-11-26 session 6: validate-top v8 by hand: known best, the final model's top 8 of three shapes, known best again
# (one thermal state), our kernel with the in-kernel clock probe.
set -u
nvidia-smi --query-gpu=name,driver_version,serial --format=csv,noheader
M="PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk19 timeout 300 python3 -m perfmodel.measure --gpu auto --warmup-ms 50 --min-ms 100 --timeout 30 --no-cublas"
eval $M --sweep configs/sweeps/sm90_validate_top_v6_known_best.toml --out $OUT/validate_top_v8_known_best_before.jsonl --seed 9620 > $OUT/kb1.log 2>&1; echo rc=$?
eval $M --sweep configs/sweeps/sm90_validate_top_v8.toml --out $OUT/validate_top_v8.jsonl --seed 9720 > $OUT/vt8.log 2>&1; echo rc=$?
eval $M --sweep configs/sweeps/sm90_validate_top_v6_known_best.toml --out $OUT/validate_top_v8_known_best_after.jsonl --seed 9820 > $OUT/kb2.log 2>&1; echo rc=$?
tail -n 30 $OUT/kb1.log $OUT/vt8.log $OUT/kb2.log | grep -E "TFLOP|INVALID|==>"
