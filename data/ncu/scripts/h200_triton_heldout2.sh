#!/bin/bash
# 2026-11-26 session 6 (on an H200 if the lent machine is one): a second Triton held-out set (4 shapes of configs/splits/triton.toml, committed before it was
# measured and before the LSU parameters were fitted on the calibration shapes): both families, 132 configs each,
# do_bench 100 ms loops back to back, as data/triton/h100_triton.jsonl.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
export TRITON_CACHE_DIR=/tmp/tc
PYTHONPATH=. timeout 500 python3 -m perfmodel.measure.triton_bench --out $OUT/h200_heldout2_triton.jsonl --time-budget 450 \
  --shapes 2048x14336x4096,4096x11008x4096,512x8192x8192,64x14336x4096 > $OUT/triton.log 2>&1; echo "triton rc=$?"
wc -l $OUT/*.jsonl; tail -3 $OUT/triton.log; date -u
