#!/bin/bash
# 2026-11-26 session 14: validate-top v9 by hand: known best, the final model's top 8 of 4096x14336x4096 bf16, known best
# again (one thermal state), our kernel with the in-kernel clock probe; binaries built on the GPU machine first.
set -u
nvidia-smi --query-gpu=name,driver_version,serial --format=csv,noheader | tee $OUT/gpu.txt
python3 data/ncu/scripts/build_pmk24.py configs/sweeps/sm90_validate_top_v6_known_best.toml \
  configs/sweeps/sm90_validate_top_v9.toml > $OUT/build.log 2>&1; echo "build rc=$?"
M="PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 timeout 300 python3 -m perfmodel.measure --gpu auto --warmup-ms 50 --min-ms 100 --timeout 30 --no-cublas"
eval $M --sweep configs/sweeps/sm90_validate_top_v6_known_best.toml --out $OUT/h100_validate_top_v9_known_best_before.jsonl --seed 9621 > $OUT/kb1.log 2>&1; echo rc=$?
eval $M --sweep configs/sweeps/sm90_validate_top_v9.toml --out $OUT/h100_validate_top_v9.jsonl --seed 9721 > $OUT/vt9.log 2>&1; echo rc=$?
eval $M --sweep configs/sweeps/sm90_validate_top_v6_known_best.toml --out $OUT/h100_validate_top_v9_known_best_after.jsonl --seed 9821 > $OUT/kb2.log 2>&1; echo rc=$?
tail -n 30 $OUT/kb1.log $OUT/vt9.log $OUT/kb2.log | grep -E "TFLOP|INVALID|==>"
