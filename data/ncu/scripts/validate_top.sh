#!/bin/bash
# tune --validate-top 8 by hand: the known best of each validate-top shape, the model's top 8
# (configs/sweeps/sm90_validate_top_vNN.toml), the known best again (one thermal state); our kernel with the in-kernel
# clock probe, binaries built on the GPU machine first. The steps of validate_top_v8.sh / _v9.sh, which stay as the
# records of those runs; later runs call this one: bash data/ncu/scripts/validate_top.sh NN SEED
# v10 (2026-11-28, thirty-second session), expectation written before the run: the best of each shape's eight within 2%
# of the known best timed beside it (>= 0.98; the goal), the 8192^3 and 4096x14336x4096 bf16 eights now all 3-4 stages
# of 64-wide k-blocks (no 2-stage ring of 256-byte rows, which v4 / v5 had picked and ran 24-34% below the model).
set -u
N=${1:?version, e.g. 10}; SEED=${2:?seed}
SWEEP=configs/sweeps/sm90_validate_top_v$N.toml; KB=configs/sweeps/sm90_validate_top_v6_known_best.toml
[ -f "$SWEEP" ] || { echo "no $SWEEP"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,serial --format=csv,noheader | tee $OUT/gpu.txt
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
python3 data/ncu/scripts/build_pmk24.py $KB $SWEEP > $OUT/build.log 2>&1; echo "build rc=$?"
M="PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 timeout 300 python3 -m perfmodel.measure --gpu auto --warmup-ms 50 --min-ms 100 --timeout 30 --no-cublas"
eval $M --sweep $KB --out $OUT/${G}_validate_top_v${N}_known_best_before.jsonl --seed $((SEED - 100)) > $OUT/kb1.log 2>&1
echo rc=$?
eval $M --sweep $SWEEP --out $OUT/${G}_validate_top_v$N.jsonl --seed $SEED > $OUT/vt.log 2>&1; echo rc=$?
eval $M --sweep $KB --out $OUT/${G}_validate_top_v${N}_known_best_after.jsonl --seed $((SEED + 100)) > $OUT/kb2.log 2>&1
echo rc=$?
tail -n 40 $OUT/kb1.log $OUT/vt.log $OUT/kb2.log | grep -E "TFLOP|INVALID|==>"
